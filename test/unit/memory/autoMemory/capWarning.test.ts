// The cap warning before MEMORY.md is full: the per-entry use counts (`.usage.json`: counted, kept per
// folder, a broken file read as empty and replaced, never the index touched), the 80% check of lines and
// bytes, the order "least used first" with the fewest entries that get back under the mark, and merging
// entries of one type with an exact undo.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import {
  capStatus,
  kbText,
  orderCandidates,
  pruneCandidates,
  readCapStatus,
} from '../../../../src/core/memory/autoMemory/capWarning';
import { loadMemoryIndex } from '../../../../src/core/memory/autoMemory/memoryIndex';
import { mergeEntries, mergedText, undoMerge } from '../../../../src/core/memory/autoMemory/mergeEntries';
import {
  foldUsage,
  readUsage,
  recordUse,
  USAGE_FILE,
  usesOf,
} from '../../../../src/core/memory/autoMemory/usageCounts';
import type { Logger } from '../../../../src/core/ports';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs();
let dir: string;
beforeEach(() => {
  dir = path.join(tempDir('engram-cap-'), 'memory');
  fs.mkdirSync(dir);
});

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}

function topic(name: string, type: string, body = `${name}: the rule.`): string {
  return `---\nname: ${name}\ndescription: ${name} in one line\ntype: ${type}\n---\n\n${body}\n`;
}

/** An index of `n` entries (types cycling user, feedback) with their topic files. */
function seed(n: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    const file = `e${String(i).padStart(3, '0')}.md`;
    fs.writeFileSync(path.join(dir, file), topic(`Entry ${i}`, i % 2 ? 'user' : 'feedback'));
    lines.push(`- [Entry ${i}](${file}) — hook ${i}`);
  }
  const text = `${lines.join('\n')}\n`;
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), text);
  return text;
}

describe('use counts', () => {
  it('counts recalls and reads per file with the newest use, in a dot file the index never lists', async () => {
    seed(2);
    await recordUse(dir, ['e001.md', './e001.md'], 'recall', { now: new Date('2026-01-01T10:00:00Z') });
    await recordUse(dir, ['e001.md'], 'read', { now: new Date('2026-01-02T10:00:00Z') });
    await Promise.all(
      [1, 2, 3].map(() => recordUse(dir, ['e002.md'], 'recall', { now: new Date('2026-01-01T09:00:00Z') })),
    );
    const usage = await readUsage(dir);
    assert.deepEqual(usage['e001.md'], { recalls: 1, reads: 1, lastUsed: '2026-01-02T10:00:00.000Z' });
    assert.equal(usesOf(usage['e002.md']), 3, 'concurrent counts in one process are not lost');
    assert.equal(usesOf(undefined), 0);
    const index = await loadMemoryIndex(dir);
    assert.deepEqual(index.unindexed, []);
    assert.deepEqual(index.warnings, []);
  });

  it('reads a broken or malformed file as empty with a log line, replaces it on the next count, and leaves MEMORY.md alone', async () => {
    const text = seed(1);
    for (const bad of [
      '{not json',
      JSON.stringify({ version: 1, entries: { 'e001.md': { recalls: -1, reads: 0, lastUsed: 'x' } } }),
      '[]',
    ]) {
      fs.writeFileSync(path.join(dir, USAGE_FILE), bad);
      const logger = recordingLogger();
      assert.deepEqual(await readUsage(dir, logger), {});
      assert.equal(logger.warnings.length, 1);
      assert.match(logger.warnings[0], /counting starts over/);
      await recordUse(dir, ['e001.md'], 'read', { logger });
      assert.equal((await readUsage(dir))['e001.md'].reads, 1);
      assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), text);
    }
  });

  it('folds the counts of merged files into the one that holds them now', async () => {
    await recordUse(dir, ['a.md', 'b.md'], 'recall', { now: new Date('2026-01-01T00:00:00Z') });
    await recordUse(dir, ['b.md'], 'read', { now: new Date('2026-02-01T00:00:00Z') });
    await foldUsage(dir, 'a.md', ['b.md']);
    assert.deepEqual(await readUsage(dir), { 'a.md': { recalls: 2, reads: 1, lastUsed: '2026-02-01T00:00:00.000Z' } });
  });
});

describe('the cap check', () => {
  it('warns from 80% of either cap and says over past one', () => {
    assert.equal(capStatus({ lines: 159, bytes: 19_999 }).level, 'ok');
    assert.equal(capStatus({ lines: 160, bytes: 100 }).level, 'near');
    assert.equal(capStatus({ lines: 10, bytes: 20_000 }).level, 'near');
    assert.equal(capStatus({ lines: 200, bytes: 25_000 }).level, 'near', 'at the cap nothing is cut yet');
    assert.equal(capStatus({ lines: 201, bytes: 100 }).level, 'over');
    assert.equal(capStatus({ lines: 10, bytes: 25_001 }).level, 'over');
    assert.equal(capStatus({ lines: 168, bytes: 21_300 }).ratio, 0.852);
    assert.deepEqual([kbText(21_300), kbText(25_000), kbText(21_345)], ['21.3', '25', '21.3']);
  });

  it('measures MEMORY.md on disk the way the index loader does', async () => {
    seed(165);
    const s = await readCapStatus(dir);
    const index = await loadMemoryIndex(dir);
    assert.deepEqual([s.lines, s.bytes, s.level], [index.totalLines, index.totalBytes, 'near']);
    fs.rmSync(path.join(dir, 'MEMORY.md'));
    assert.equal((await readCapStatus(dir)).lines, 0);
  });
});

describe('least used first', () => {
  it('orders by uses, then last use (never used first), then the later line; suggests the fewest that get under the mark', () => {
    const text = [
      '# Index',
      '- [A](a.md) — a',
      '- [B](b.md) — b',
      '- [C](c.md) — c',
      '- [D](d.md) — d',
      '- [B again](b.md) — dup',
      '',
    ].join('\n');
    const usage = {
      'a.md': { recalls: 2, reads: 0, lastUsed: '2026-01-01T00:00:00.000Z' },
      'c.md': { recalls: 1, reads: 1, lastUsed: '2025-06-01T00:00:00.000Z' },
      'd.md': { recalls: 0, reads: 2, lastUsed: '2026-03-01T00:00:00.000Z' },
    };
    // 6 lines against a 5-line cap warned at 80% (4 lines): two lines must go, b.md has two.
    const out = orderCandidates(text, usage, { maxLines: 5, warnRatio: 0.8 });
    assert.deepEqual(
      out.map((c) => [c.file, c.uses, c.lines, c.suggested]),
      [
        ['b.md', 0, 2, true],
        ['c.md', 2, 1, true],
        ['a.md', 2, 1, false],
        ['d.md', 2, 1, false],
      ],
    );
    assert.equal(out[0].line, 3);
    assert.equal(out[0].bytes, Buffer.byteLength('- [B](b.md) — b\n') + Buffer.byteLength('- [B again](b.md) — dup\n'));
    assert.ok(
      orderCandidates(text, usage).every((c) => !c.suggested),
      'under the mark nothing is suggested',
    );
  });

  it('reads the index and the counts from the folder', async () => {
    seed(170);
    await recordUse(
      dir,
      Array.from({ length: 168 }, (_, i) => `e${String(i + 3).padStart(3, '0')}.md`),
      'recall',
    );
    const out = await pruneCandidates(dir);
    // Entries 1 and 2 were never used; 170 lines need 11 out to get under 160.
    assert.deepEqual(
      out.slice(0, 2).map((c) => c.file),
      ['e002.md', 'e001.md'],
    );
    assert.equal(out.filter((c) => c.suggested).length, 11);
  });
});

describe('merge', () => {
  it('keeps the first file and front matter, appends the others under their titles, and undo gives back every byte', async () => {
    const index = seed(5);
    fs.writeFileSync(path.join(dir, 'e003.md'), topic('Entry 3', 'user', 'Third body.\n\nMore.'));
    const before = new Map(['e001.md', 'e003.md', 'e005.md'].map((f) => [f, fs.readFileSync(path.join(dir, f))]));
    await recordUse(dir, ['e003.md'], 'read');
    const result = await mergeEntries(dir, ['e001.md', 'e003.md', 'e005.md']);
    assert.deepEqual([result.file, result.merged], ['e001.md', ['e003.md', 'e005.md']]);
    const merged = fs.readFileSync(path.join(dir, 'e001.md'), 'utf8');
    assert.equal(
      merged,
      `${topic('Entry 1', 'user').trimEnd()}\n\n## Entry 3\n\nThird body.\n\nMore.\n\n## Entry 5\n\nEntry 5: the rule.\n`,
    );
    assert.ok(!fs.existsSync(path.join(dir, 'e003.md')) && !fs.existsSync(path.join(dir, 'e005.md')));
    const lines = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').split('\n');
    assert.equal(lines[0], '- [Entry 1](e001.md) — hook 1; hook 3; hook 5', 'the line stays where the first one was');
    assert.deepEqual(lines.slice(1), ['- [Entry 2](e002.md) — hook 2', '- [Entry 4](e004.md) — hook 4', '']);
    assert.equal((await readUsage(dir))['e001.md']?.reads, 1, 'the counts moved to the merged file');

    fs.appendFileSync(path.join(dir, 'e001.md'), 'an edit after the merge\n');
    await undoMerge(dir, result);
    assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), index);
    for (const [f, bytes] of before) assert.deepEqual(fs.readFileSync(path.join(dir, f)), bytes, f);
    const trash = fs.readdirSync(path.join(dir, '.trash'));
    assert.equal(trash.length, 1, 'the edited merge result is kept in the trash');
  });

  it('refuses one entry, mixed types and unindexed files, changing nothing', async () => {
    const index = seed(3);
    fs.writeFileSync(path.join(dir, 'loose.md'), topic('Loose', 'user'));
    await assert.rejects(mergeEntries(dir, ['e001.md', './e001.md']), /two or more/);
    await assert.rejects(
      mergeEntries(dir, ['e001.md', 'e002.md']),
      /of one type can be merged; these are user and feedback/,
    );
    await assert.rejects(mergeEntries(dir, ['e001.md', 'loose.md']), /loose\.md has no line in MEMORY\.md/);
    assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), index);
    assert.ok(!fs.existsSync(path.join(dir, '.trash')) || fs.readdirSync(path.join(dir, '.trash')).length === 0);
  });

  it('puts each other body under a one-line heading', () => {
    assert.equal(
      mergedText({ text: 'first\n\n\n' }, [{ title: 'Two\nlines', body: '\nbody\n' }]),
      'first\n\n## Two lines\n\nbody\n',
    );
  });
});
