// A node:test reporter that only counts leaf tests and writes {passed, failed, skipped, failures} as JSON.
// Used next to the 'spec' reporter so `npm test` can sum every suite into one closing line.
export default async function* countReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  for await (const event of source) {
    const data = event.data ?? {};
    if (data.details?.type === 'suite') continue;
    if (event.type === 'test:pass') {
      if (data.skip || data.todo) counts.skipped++;
      else counts.passed++;
    } else if (event.type === 'test:fail') {
      counts.failed++;
      const reason = String(data.details?.error?.cause?.message ?? data.details?.error?.message ?? '')
        .split('\n')[0]
        .slice(0, 300);
      counts.failures.push(`${data.file ?? ''}: ${data.name}${reason ? `: ${reason}` : ''}`);
    }
  }
  yield JSON.stringify(counts);
}
