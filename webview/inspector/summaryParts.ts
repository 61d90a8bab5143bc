// A compaction's opening message, taken apart for reading: the summary (or the session notes) is
// Markdown with its sections; the files re-attached after it, the instructions and the memory index are
// file contents, shown as code (a README's "# Title" is not the inspector's heading, code keeps its
// backticks); the sentences around them are plain text. The tags that mark the parts are not shown.

export type SummaryPart =
  | { kind: 'text'; text: string }
  | { kind: 'summary'; markdown: string }
  | { kind: 'file'; path: string; truncated: boolean; content: string }
  | { kind: 'block'; tag: 'instructions' | 'memory-index'; content: string };

// One alternative per kind of part; the group numbers (m[1] to m[7] below, and the backreferences \1
// and \6) count across all three.
const SUMMARY_TAG = String.raw`<(summary|session-notes)>\n?([\s\S]*?)\n?<\/\1>`;
const FILE_TAG = String.raw`<file path="([^"]*)"( truncated="true")?>\n?([\s\S]*?)\n?<\/file>`;
const BLOCK_TAG = String.raw`<(instructions|memory-index)>\n?([\s\S]*?)\n?<\/\6>`;
const PART = new RegExp(`${SUMMARY_TAG}|${FILE_TAG}|${BLOCK_TAG}`, 'g');

export function summaryParts(message: string): SummaryPart[] {
  const parts: SummaryPart[] = [];
  const text = (t: string) => {
    if (t.trim()) parts.push({ kind: 'text', text: t.trim() });
  };
  let at = 0;
  let sawSummary = false;
  for (const m of message.matchAll(PART)) {
    text(message.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[1]) {
      parts.push({ kind: 'summary', markdown: m[2] });
      sawSummary = true;
    } else if (m[3] !== undefined) {
      parts.push({ kind: 'file', path: m[3], truncated: m[4] !== undefined, content: m[5] });
    } else {
      parts.push({ kind: 'block', tag: m[6] as 'instructions' | 'memory-index', content: m[7] });
    }
  }
  const rest = message.slice(at);
  // A summary without its tags (an older transcript, or a model that left them out) is the summary.
  if (!sawSummary && parts.length === 0) return rest.trim() ? [{ kind: 'summary', markdown: rest }] : [];
  text(rest);
  return parts;
}
