// Where a transcript's conversation branches (issue #20): two writers that continued the same line are
// found and reported by line; what the reader reads as intended (parallel tool calls, Retry/Edit,
// compactions, Claude Code's own files) is not.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findBranches, formatBranchReport, reportBranches } from '../../../src/core/conversation/branches';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import { recordRewind } from '../../../src/core/conversation/rewindLine';
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import { useTempDirs } from '../support/tempDirs';
import { writeBranchedTranscript, writeTurn } from '../support/branchedTranscript';
import { CC_FIXTURES, fixtureTranscripts } from './testSupport';

const tempDir = useTempDirs('each');

describe('findBranches', () => {
  it('finds two writers that continued the same line, with the lines and prompt of each side', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    await writeBranchedTranscript(file);
    const points = findBranches((await readTranscript(file)).lines);
    assert.equal(points.length, 1);
    const [a, b] = points[0].branches;
    assert.deepEqual([a.prompt, a.current, a.lines], ['from window A', false, 4], 'prompt, call, result, answer');
    assert.deepEqual([b.prompt, b.current, b.lines], ['from window B', true, 4]);

    const [report] = await reportBranches(file, points);
    assert.deepEqual(report, {
      line: 4,
      branches: [
        { line: 5, lines: 4, prompt: 'from window A', current: false },
        { line: 9, lines: 4, prompt: 'from window B', current: true },
      ],
    });
    assert.equal(
      formatBranchReport(file, report),
      `${file}:4: the conversation branches after this line into 2 (line 5 "from window A", 4 lines, left out; line 9 "from window B", 4 lines, read back): ` +
        `two writers on one session at once? A resume reads only the branch read back; engram merge-branches ${file} appends the left-out turns after it.`,
    );
  });

  it('sees no branch in parallel tool calls, a retried turn, or a turn taken back twice', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const w = new TranscriptWriter({ file, sessionId: 's', cwd: '/p', version: '0' });
    await writeTurn(w, 'first', 2);
    const before = w.lastUuid;
    await writeTurn(w, 'dropped', 1);
    await recordRewind(w, before, w.lastUuid);
    await writeTurn(w, 'dropped again', 0);
    await recordRewind(w, before, w.lastUuid);
    await writeTurn(w, 'kept', 3);
    assert.deepEqual(findBranches((await readTranscript(file)).lines), []);
  });

  it("sees no branch in Claude Code's own transcripts", async () => {
    for (const name of await fixtureTranscripts()) {
      assert.deepEqual(findBranches((await readTranscript(path.join(CC_FIXTURES, name))).lines), [], name);
    }
  });
});
