// The inspector's view of a session on disk (issue #10, ask 1): compactions known only from the
// transcript name the lines they replaced (so "the messages it replaced" are those, not a line range),
// undos of either kind are facts that mark what they undid, and the lines an undo writes back are not
// taken for a summary.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readReplacedMessages } from '../../../src/core/inspection/replacedMessages';
import { transcriptFacts } from '../../../src/core/inspection/transcriptFacts';
import { buildTimeline } from '../../../src/core/inspection/timelineView';
import { openLive } from '../compaction/liveConversation';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();

describe("transcript facts of Engram's compaction records", () => {
  it('carry the replaced uuids, and both kinds of undo', async () => {
    const live = openLive(tempDir());
    for (const size of [3_000, 2_000, 900]) {
      live.model.plan([size]);
      await live.agent.runTurn(`turn ${size}`);
    }
    assert.ok((await live.orch.compactNow('micro')).ok);
    const micro = live.orch.events[0];
    assert.ok((await live.orch.compactNow('session-memory')).ok);
    const summary = live.orch.events[1];
    assert.ok(await live.orch.undoLast());
    assert.ok(await live.orch.undoLast());
    await live.agent.transcript?.flush();

    const facts = (await transcriptFacts(live.file))!;
    assert.deepEqual(
      facts.compactions.map((c) => [c.stage, c.undoes]),
      [
        ['micro', undefined],
        ['session-memory', undefined],
        ['undo', summary.id],
        ['undo', micro.id],
      ],
    );
    const sm = facts.compactions[1];
    assert.deepEqual(sm.replacedUuids, summary.replacedIds);
    assert.equal(sm.replacedLines, summary.replacedIds.length);
    assert.equal(sm.summary, summary.summaryText);
    assert.equal(facts.compactions[2].summary, undefined, 'the restored lines after an undo are no summary');
    assert.equal(facts.compactions[0].trimmed, micro.trimmedToolUseIds?.length);
    const replaced = await readReplacedMessages(live.file, { uuids: sm.replacedUuids ?? [] });
    assert.match(replaced[0].text, /turn 3000/);
    const timeline = buildTimeline({ facts, canUndo: true });
    assert.ok(
      timeline.every((t) => t.kind !== 'compaction' || !t.undoable),
      'nothing left to undo',
    );
    assert.equal(new Set(facts.responses.keys()).size, facts.responseCount, 'restored responses are not counted twice');
  });
});
