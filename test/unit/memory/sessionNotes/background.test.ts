// Updates run in the background: the turn does not wait, runs never overlap, compaction can wait for one
// (with a timeout), and a failed or impossible update is reported without disturbing the conversation.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';
import { attachSessionNotes } from '../../../../src/core/memory/sessionNotes/attach';
import { sessionNotesPaths } from '../../../../src/core/memory/sessionNotes/paths';
import type { SessionNotesEvent } from '../../../../src/core/memory/sessionNotes/events';
import { ensureTokenizer } from '../../../../src/core/tokens/tokenizer';
import { startSession } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';
import { ScriptedModel, settleNotesAfterEach, standardForkReply, type ForkScript } from './sessionNotesHarness';

const server = useTestServer();
const settle = settleNotesAfterEach();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

before(async () => {
  // The first update loads the tokenizer (~1 s, synchronously); the product loads it off the turn's path
  // anyway, and timing assertions here must not measure it.
  await ensureTokenizer();
});

const SMALL = { initTokens: 2_000, growthTokens: 1_000, toolCalls: 3 };

async function setup(forkScript: (notesPath: string) => ForkScript, opts: { trusted?: boolean } = {}) {
  const started: string[] = [];
  workspace = tempDir('engram-ws-');
  dataDir = tempDir('engram-data-');
  const { session } = await startSession(server, {
    workspace,
    dataDir,
    ...(opts.trusted === false ? { trusted: false } : {}),
  });
  const paths = sessionNotesPaths(dataDir, workspace, session.sessionId);
  const model = new ScriptedModel(paths.summary, forkScript(paths.summary));
  server.setResponder(model.responder);
  const events: SessionNotesEvent[] = [];
  // Background, as in the product: awaitUpdates is off.
  const notes = attachSessionNotes(session.agent, {
    dataDir,
    thresholds: SMALL,
    onEvent: (e) => {
      events.push(e);
      // Emitted synchronously from the hook, so the model's turn and step are those of the trigger.
      if (e.type === 'notesUpdateStarted') started.push(`${e.kind} ${model.turn}.${model.step}`);
    },
  });
  settle(notes);
  return { session, paths, model, notes, events, started };
}

/** The standard edits, with the fork's first reply held back `delayMs`; logs each fork's first and last request. */
function slowFork(delayMs: number, log: string[]): (notesPath: string) => ForkScript {
  return (notesPath) => (call) => {
    log.push(call.first ? 'start' : 'end');
    const reply = standardForkReply(call, notesPath);
    return call.first ? { ...reply, delayMs } : reply;
  };
}

describe('session notes in the background', () => {
  it('the turn does not wait; waitForUpdate reports timeout, then done, then idle', async () => {
    const log: string[] = [];
    const { session, model, notes, events, paths } = await setup(slowFork(1_000, log));
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    await session.agent.runTurn('go');
    assert.equal(notes.updating, true, 'the turn ended before the update');
    assert.ok(!log.includes('end'));
    assert.equal(await notes.waitForUpdate(20), 'timeout');
    assert.equal(notes.updating, true, 'a timeout does not stop the update');
    assert.equal(await notes.waitForUpdate(), 'done');
    assert.equal(notes.updating, false);
    assert.equal(await notes.waitForUpdate(), 'idle');
    assert.deepEqual(
      events.map((e) => e.type),
      ['notesUpdateStarted', 'notesCreated', 'notesUpdated'],
    );
    assert.match(fs.readFileSync(paths.summary, 'utf8'), /Now: turn /);
  });

  it('never overlaps: a trigger during a run is skipped and asked again on a later response', async () => {
    const log: string[] = [];
    const { session, model, notes, started, events } = await setup(slowFork(300, log));
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    await session.agent.runTurn('one'); // init starts
    model.startTurn(2, [{ toolCalls: 0, grow: 1_500 }]);
    await session.agent.runTurn('two'); // due, but the init still runs
    assert.equal(notes.updating, true);
    const busy = await notes.runUpdate(session.agent.forkContext(), 'update', {
      messageId: 'msg_x',
      contextTokens: 4_000,
    });
    assert.deepEqual(busy, { status: 'busy' });
    assert.equal(await notes.waitForUpdate(), 'done');
    model.startTurn(3, [{ toolCalls: 0, grow: 10 }]);
    await session.agent.runTurn('three'); // still due: the skipped decision was not marked
    assert.equal(await notes.waitForUpdate(), 'done');

    assert.deepEqual(started, ['init 1.1', 'update 3.1']);
    // Each update is one model call: its reply holds the edits, and the fork ends once they applied.
    assert.deepEqual(log, ['start', 'start']);
    const lifecycle = events
      .filter((e) => e.type === 'notesUpdateStarted' || e.type === 'notesUpdated')
      .map((e) => (e.type === 'notesUpdated' ? 'end' : 'start'));
    assert.deepEqual(lifecycle, ['start', 'end', 'start', 'end'], 'one fork at a time');
    assert.equal(notes.state.tokensAtLastUpdate, 4_010);
  });

  it('a failing updater call is reported; the conversation and the cursor are unaffected', async () => {
    const { session, model, notes, events, paths } = await setup(
      () => (call) =>
        call.first
          ? { error: { status: 400, type: 'invalid_request_error', message: 'scripted updater failure' } }
          : { content: [{ type: 'text', text: 'unreachable' }] },
    );
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    const result = await session.agent.runTurn('go');
    assert.equal(result.reason, 'end_turn');
    assert.equal(await notes.waitForUpdate(), 'done');
    const failed = events.find((e) => e.type === 'notesUpdateFailed');
    assert.ok(failed && failed.type === 'notesUpdateFailed');
    assert.match(failed.error, /scripted updater failure/);
    const state = JSON.parse(fs.readFileSync(paths.state, 'utf8'));
    assert.equal(state.lastSummarizedMessageId, undefined, 'nothing is covered by a failed update');
    assert.match(state.lastError, /scripted updater failure/);
    assert.equal(
      fs.readFileSync(paths.summary, 'utf8').startsWith('# Session Title'),
      true,
      'the template is in place',
    );
  });

  it('without an Edit tool (untrusted workspace) no model call is spent and the failure says why', async () => {
    const { session, model, notes, events } = await setup((p) => (call) => standardForkReply(call, p), {
      trusted: false,
    });
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    await session.agent.runTurn('go');
    assert.equal(await notes.waitForUpdate(), 'done');
    assert.equal(model.forkCalls.length, 0);
    const failed = events.find((e) => e.type === 'notesUpdateFailed');
    assert.ok(failed && failed.type === 'notesUpdateFailed');
    assert.match(failed.error, /no Edit tool/);
  });

  it('dispose stops a running update and detaches from the agent', async () => {
    const log: string[] = [];
    const { session, model, notes } = await setup(slowFork(2_000, log));
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    await session.agent.runTurn('go');
    assert.equal(notes.updating, true);
    const t0 = Date.now();
    notes.dispose();
    assert.equal(await notes.waitForUpdate(), 'done');
    assert.ok(Date.now() - t0 < 1_500, 'the fork was cancelled, not awaited');
    assert.equal(session.agent.hooks.afterModelResponse.size, 0);
    assert.equal(session.agent.hooks.afterTurn.size, 0);
  });
});
