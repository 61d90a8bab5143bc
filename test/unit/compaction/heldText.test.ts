// Long texts left on disk while `engram gauge` and `engram compact` work on a whole transcript
// (heldText.ts, issue 31): the view, the gauge and every compaction stage give exactly what they give
// with every text in memory, on Claude Code's own transcripts and on a hostile one (broken and glued
// lines, a torn tail, CRLF and a byte order mark, a response split over lines, parallel tool calls,
// sidechain lines, a branch, long outputs in strings, blocks and the tool's own copy).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { releaseHeldTexts } from '../../../src/core/compaction/heldText';
import { compactTranscript } from '../../../src/core/compaction/transcriptCompaction';
import { loadTranscriptView } from '../../../src/core/compaction/transcriptView';
import { readFileLine, splitFileLines } from '../../../src/core/conversation/lineSplitter';
import { measureTranscript } from '../../../src/core/inspection/transcriptInspection';
import { defaultSettings } from '../../../src/core/settings/engramSettings';
import { countTokens, ensureTokenizer } from '../../../src/core/tokens/tokenizer';
import { CC_FIXTURES, fixtureTranscripts } from '../conversation/testSupport';
import { useTempDirs } from '../support/tempDirs';
import { hostileTranscript, long } from './heldSupport';

const tempDir = useTempDirs('all');

async function files(): Promise<string[]> {
  const dir = tempDir('engram-held-');
  const hostile = path.join(dir, 'hostile.jsonl');
  fs.writeFileSync(hostile, hostileTranscript());
  return [hostile, ...(await fixtureTranscripts()).map((n) => path.join(CC_FIXTURES, n))];
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('long texts read back from disk', () => {
  it('give the same view: lines, messages, problems and repairs', async () => {
    for (const file of await files()) {
      const whole = await loadTranscriptView(file);
      const held = await loadTranscriptView(file, { holdBigTexts: true });
      const name = path.basename(file);
      assert.deepEqual(plain(held.lines), plain(whole.lines), name);
      assert.deepEqual(plain(held.entries), plain(whole.entries), name);
      assert.deepEqual(held.report, whole.report, name);
      assert.deepEqual(held.corrupt, whole.corrupt, name);
      assert.equal(held.tornTail, whole.tornTail, name);
      assert.equal(held.lineCount, whole.lineCount, name);
    }
  });

  it('hold the long texts only, and an assigned text stays as assigned', async () => {
    const [hostile] = await files();
    const view = await loadTranscriptView(hostile, { holdBigTexts: true });
    const result = view.lines.find((l) => l.uuid === 'r1') as { message: { content: Array<{ content: unknown }> } };
    const block = result.message.content[0];
    assert.equal(typeof Object.getOwnPropertyDescriptor(block, 'content')?.get, 'function');
    assert.equal((block.content as string).length, long('file a').length);
    block.content = 'replaced';
    assert.equal(block.content, 'replaced');
    const short = view.lines.find((l) => l.uuid === 'u2') as { message: object };
    assert.equal(Object.getOwnPropertyDescriptor(short.message, 'content')?.get, undefined);
  });

  it('give the same gauge: used tokens, breakdown, model calls and problems', async () => {
    await ensureTokenizer();
    const settings = defaultSettings();
    for (const file of await files()) {
      const whole = await measureTranscript(file, settings, countTokens, false);
      const held = await measureTranscript(file, settings, countTokens, true);
      assert.deepEqual(plain(held), plain(whole), path.basename(file));
    }
  });

  it('give the same compaction at every stage that runs without a model', async () => {
    const settings = defaultSettings();
    const keep = { keepMinTokens: 50, keepMaxTokens: 400, keepMinTextMessages: 1 };
    const notesFile = path.join(CC_FIXTURES, 'sm-session-memory-summary.md');
    let compared = 0;
    for (const file of await files())
      for (const stage of ['micro', 'session-memory', 'auto'] as const) {
        const input = { file, stage, settings, keep, notesFile, env: {} };
        const whole = await compactTranscript({ ...input, holdBigTexts: false });
        const held = await compactTranscript({ ...input, holdBigTexts: true });
        assert.deepEqual(plain(held), plain(whole), `${path.basename(file)} ${stage}`);
        if (whole.ok) compared++;
      }
    assert.ok(compared >= 6, `only ${compared} compactions ran`);
  });

  it('append the same compaction with --write', async () => {
    const dir = tempDir('engram-held-write-');
    const settings = defaultSettings();
    const keep = { keepMinTokens: 50, keepMaxTokens: 400, keepMinTextMessages: 1 };
    const notesFile = path.join(CC_FIXTURES, 'sm-session-memory-summary.md');
    for (const stage of ['micro', 'session-memory'] as const) {
      const sent: unknown[] = [];
      for (const holdBigTexts of [false, true]) {
        const file = path.join(dir, `${stage}-${holdBigTexts}.jsonl`);
        fs.writeFileSync(file, `${hostileTranscript()}\n`);
        const out = await compactTranscript({
          file,
          stage,
          settings,
          keep,
          notesFile,
          env: {},
          write: true,
          holdBigTexts,
        });
        assert.ok(out.ok && out.result.written?.length === 1, stage);
        // What a resume sends next, read back from the file.
        sent.push(plain((await loadTranscriptView(file)).entries.map((e) => e.message)));
      }
      assert.deepEqual(sent[1], sent[0], stage);
    }
  });

  it('are found again where the splitter said, lines across chunks and CRLF included', async () => {
    const dir = tempDir('engram-split-');
    const file = path.join(dir, 'lines.jsonl');
    const lines = ['short', 'x'.repeat(3 * 1024 * 1024 + 7), '', 'crlf\r', `é${'y'.repeat(70_000)}`, 'last'];
    fs.writeFileSync(file, lines.join('\n'));
    const seen: string[] = [];
    const fd = fs.openSync(file, 'r');
    try {
      await splitFileLines(file, (buf, start, end, _lineNo, _terminated, offset) => {
        assert.deepEqual(readFileLine(fd, offset, end - start), buf.subarray(start, end));
        seen.push(buf.toString('utf8', start, end));
      });
    } finally {
      fs.closeSync(fd);
    }
    assert.deepEqual(seen, lines);
  });

  it('say so when the file was rewritten under them', async () => {
    const dir = tempDir('engram-rewrite-');
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, hostileTranscript());
    const view = await loadTranscriptView(file, { holdBigTexts: true });
    fs.writeFileSync(file, hostileTranscript().replace(/"uuid":"r1"/, '"uuid":"zz"'));
    const line = view.lines.find((l) => l.uuid === 'r1') as { message: { content: Array<{ content: unknown }> } };
    releaseHeldTexts();
    assert.throws(() => line.message.content[0].content, /changed while it was being read/);
  });
});
