// Issue #10, ask 1, as a property: whatever a session did (turns with tool output of any size,
// automatic and manual microcompacts, session-memory and full compactions, reactive recovery, undos,
// and resuming from the transcript in between), reading its transcript back gives exactly the
// messages the process holds, JSON-identical, so a resumed process sends the same bytes; and after a
// resume the newest compaction is still undone to the same messages the live process would get.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isTrimmed } from '../../../src/core/compaction/microcompact';
import { isRepeatNote } from '../../../src/core/conversation/repeatedResults';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { useTempDirs } from '../support/tempDirs';
import { requestProblem } from './compactionSupport';
import { defaultSettings, openLive, readBack, resumeLive, type Live } from './liveConversation';

const tempDir = useTempDirs();

type Op =
  | { kind: 'turn'; sizes: number[] }
  | { kind: 'tooLong'; sizes: number[] }
  | { kind: 'micro' | 'session-memory' | 'full' | 'auto' | 'undo' | 'resume' };

// 900, 1,500 and 3,000 come back as the same bytes (liveConversation.ts): repeats, sent as notes.
const sizeArb = fc.oneof(
  fc.integer({ min: 10, max: 300 }),
  fc.integer({ min: 380, max: 420 }),
  fc.integer({ min: 500, max: 5_000 }),
  fc.constantFrom(900, 1_500, 3_000),
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('turn' as const), sizes: fc.array(sizeArb, { maxLength: 4 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('tooLong' as const), sizes: fc.array(sizeArb, { maxLength: 2 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Op>({ kind: 'micro' }, { kind: 'session-memory' }, { kind: 'full' }, { kind: 'auto' }),
  },
  { weight: 2, arbitrary: fc.constant<Op>({ kind: 'undo' }) },
  { weight: 2, arbitrary: fc.constant<Op>({ kind: 'resume' }) },
);

/** What the runs went through, so the property is known to reach every path it is about. */
const seen = {
  stages: new Set<string>(),
  undone: 0,
  undoneSummaries: 0,
  replayed: 0,
  resumes: 0,
  notes: 0,
  notesAfterTrim: 0,
};

/** JSON of the request messages: what "the same bytes" means for the API. */
const json = (messages: readonly unknown[]): string => JSON.stringify(messages);

async function apply(live: Live, op: Op, dir: string, settings: ReturnType<typeof defaultSettings>): Promise<Live> {
  switch (op.kind) {
    case 'turn':
    case 'tooLong':
      live.model.plan(op.sizes);
      if (op.kind === 'tooLong') live.model.tooLong = 1;
      await live.agent.runTurn(`prompt ${live.model.requests.length}`);
      return live;
    case 'undo':
      await undoBoth(live, settings);
      return live;
    case 'resume':
      seen.resumes++;
      return resumeLive(dir, live, settings);
    default:
      await live.orch.compactNow(op.kind);
      return live;
  }
}

/**
 * The undo, live and in a process resumed from a copy of the transcript just before it: both know the
 * newest compaction, both undo it, to the same messages, and each reads back as what it holds.
 */
async function undoBoth(live: Live, settings: ReturnType<typeof defaultSettings>): Promise<void> {
  if (live.orch.events.length === 0) {
    assert.equal(await live.orch.undoLast(), false);
    return;
  }
  await live.agent.transcript?.flush();
  const twinDir = tempDir('engram-replay-twin-');
  fs.copyFileSync(live.file, path.join(twinDir, path.basename(live.file)));
  const twin = await resumeLive(twinDir, { ...live, file: path.join(twinDir, path.basename(live.file)) }, settings);
  assert.equal(json(twin.agent.messages), json(live.agent.messages), 'the resumed process holds the same conversation');
  assert.deepEqual(
    twin.orch.events.map((e) => e.id),
    live.orch.events.map((e) => e.id),
    'and knows the same compactions',
  );
  const newest = live.orch.events.at(-1);
  const [a, b] = [await live.orch.undoLast(), await twin.orch.undoLast()];
  if (a) seen.undone++;
  if (a && newest?.summaryText !== undefined) seen.undoneSummaries++;
  assert.equal(b, a, 'undo works after a resume when it works live');
  assert.equal(json(twin.agent.messages), json(live.agent.messages), 'and restores the same messages');
  const back = await readBack(twin);
  assert.equal(json(back.messages), json(twin.agent.messages), "the resumed process's undo reads back too");
}

/** Repeat notes in the conversation, and notes whose copy was trimmed or compacted away since. */
function countNotes(messages: readonly ApiMessage[]): void {
  const whole = new Set<string>();
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      if (!isRepeatNote(b)) {
        if (!isTrimmed(b)) whole.add(b.tool_use_id);
        continue;
      }
      seen.notes++;
      const of = / id ([^:\s]+):/.exec(b.content as string)?.[1] ?? '';
      if (!whole.has(of)) seen.notesAfterTrim++;
    }
  }
}

describe('a transcript reads back as the conversation the process holds', () => {
  it('after any sequence of turns, compactions, undos and resumes (JSON-identical messages)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), fc.boolean(), async (ops, auto) => {
        const dir = tempDir('engram-replay-');
        const settings = defaultSettings({ auto });
        let live = openLive(dir, { settings });
        for (const [i, op] of ops.entries()) {
          try {
            live = await apply(live, op, dir, settings);
            const back = await readBack(live);
            seen.replayed += back.replayed;
            for (const e of live.orch.events) seen.stages.add(e.stage);
            assert.deepEqual(back.warnings, []);
            assert.equal(json(back.messages), json(live.agent.messages), `after ${op.kind}`);
            countNotes(live.agent.messages);
          } catch (e) {
            if (process.env.ENGRAM_DEBUG) console.error(`op ${i} ${op.kind}:`, e);
            throw e;
          }
          if (live.agent.messages.length > 0) assert.equal(requestProblem(live.agent.messages), null);
        }
      }),
      { numRuns: 120 },
    );
    if (process.env.ENGRAM_DEBUG) console.error(JSON.stringify({ ...seen, stages: [...seen.stages] }));
    assert.deepEqual([...seen.stages].sort(), ['full', 'micro', 'reactive', 'session-memory']);
    assert.ok(
      seen.undone > 10 && seen.undoneSummaries > 3 && seen.replayed > 20 && seen.resumes > 20,
      JSON.stringify(seen),
    );
    // Repeats went as notes and read back as notes (repeatedResults.test.ts has a note outliving its copy).
    assert.ok(seen.notes > 20, JSON.stringify(seen));
  });
});
