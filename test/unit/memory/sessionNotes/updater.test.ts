// Session notes end to end: a real Agent on the test server, the notes attached, the updater's forks
// answered by a scripted model. Firing points, the file on disk, the sidecar, caps and the user template.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { NotesSource } from '../../../../src/core/compaction/notesSource';
import { attachSessionNotes } from '../../../../src/core/memory/sessionNotes/attach';
import { sessionNotesPaths, userTemplatePath } from '../../../../src/core/memory/sessionNotes/paths';
import { DEFAULT_TEMPLATE, isTemplateOnly, parseNotes } from '../../../../src/core/memory/sessionNotes/template';
import type { SessionNotesEvent } from '../../../../src/core/memory/sessionNotes/events';
import { SessionNotes } from '../../../../src/core/memory/sessionNotes/updater';
import { NOTES_SECTION_CAP_TOKENS } from '../../../../src/core/thresholds';
import { startSession } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';
import { ScriptedModel, settleNotesAfterEach, WORKLOG_GUIDE, type MainStep } from './sessionNotesHarness';

const server = useTestServer();
const settle = settleNotesAfterEach();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

const SMALL = { initTokens: 2_000, growthTokens: 1_000, toolCalls: 3 };

/** Opens a session with notes attached (updates awaited inside the hook, so the order is fixed). */
async function setup(model?: (notesPath: string) => ScriptedModel) {
  workspace = tempDir('engram-ws-');
  dataDir = tempDir('engram-data-');
  const { session } = await startSession(server, { workspace, dataDir });
  const paths = sessionNotesPaths(dataDir, workspace, session.sessionId);
  const scripted = model ? model(paths.summary) : new ScriptedModel(paths.summary);
  server.setResponder(scripted.responder);
  const events: SessionNotesEvent[] = [];
  const started: string[] = [];
  const notes = attachSessionNotes(session.agent, {
    dataDir,
    thresholds: SMALL,
    awaitUpdates: true,
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'notesUpdateStarted') started.push(`${scripted.turn}.${scripted.step}`);
    },
  });
  settle(notes);
  return { session, paths, model: scripted, notes, events, started };
}

/** Per turn: tool calls of each main response, 0 ending the turn. Tool responses grow the context more. */
const SHAPES = [[1, 0], [3, 0], [0], [1, 1, 0], [0]];
function plan(turn: number): MainStep[] {
  return SHAPES[turn % 5].map((toolCalls) => ({ toolCalls, grow: toolCalls > 0 ? 450 : 250 }));
}

describe('session notes on a scripted conversation', () => {
  it('40 turns: the trigger fires, and the updater forks run, at exactly the expected responses', async () => {
    const { session, paths, model, notes, events, started } = await setup();
    const firstRequest = server.requests.length;
    const messageIds = new Map<string, string>();
    session.agent.on((e) => {
      if (e.type === 'assistantMessage') messageIds.set(`${model.turn}.${model.step}`, e.messageId);
    });
    for (let turn = 1; turn <= 40; turn++) {
      model.startTurn(turn, plan(turn));
      const result = await session.agent.runTurn(`Prompt ${turn}`);
      assert.equal(result.reason, 'end_turn', `turn ${turn}`);
      assert.equal(model.planLeft, 0, `turn ${turn} used its script`);
    }
    await notes.flushState();

    // Worked out by hand from the rule (init at >= 2,000; then growth >= 1,000 AND (>= 3 tool calls OR a
    // turn that ended without any tool call); due at a response that called tools, it fires at the next
    // one): turn.response, 1-based. Turns 3, 8, 13, ... end with an answer after two tool calls: not a
    // pause, so the update waits for the next chat turn (9, 14, ...). Turns 6, 11, ... make three calls in
    // their first response: due there, the update starts with the answer that read their results.
    const expected = [
      '3.3',
      '6.2',
      '9.1',
      '11.2',
      '14.1',
      '16.2',
      '19.1',
      '21.2',
      '24.1',
      '26.2',
      '29.1',
      '31.2',
      '34.1',
      '36.2',
      '39.1',
    ];
    assert.equal(model.mainCalls.length, 72);
    assert.deepEqual(started, expected, 'trigger firing points');
    assert.deepEqual(
      model.forkCalls.filter((c) => c.first).map((c) => `${c.turn}.${c.step}`),
      expected,
      'updater fork requests',
    );
    assert.equal(
      model.forkCalls.length,
      expected.length,
      'each fork: one reply with the edits, and it ends once they applied',
    );
    const requests = server.requests.slice(firstRequest);
    assert.equal(requests.length, 72 + expected.length);
    assert.ok(
      requests.every((r) => r.status === 200),
      'every request was valid',
    );

    assert.deepEqual(
      events.filter((e) => e.type === 'notesCreated'),
      [{ type: 'notesCreated', path: paths.summary, template: 'default' }],
    );
    const updated = events.filter((e) => e.type === 'notesUpdated');
    assert.deepEqual(
      updated.map((e) => e.kind),
      ['init', ...expected.slice(1).map(() => 'update')],
    );
    assert.ok(
      updated.every(
        (e) => !e.condensed && e.modelCalls === 1 && e.agentIds.length === 1 && e.overCap.sections.length === 0,
      ),
    );
    assert.equal(events.filter((e) => e.type === 'notesUpdateFailed').length, 0);

    const text = fs.readFileSync(paths.summary, 'utf8');
    const parsed = parseNotes(text);
    assert.deepEqual(
      parsed.sections.map((s) => [s.heading, s.guide]),
      parseNotes(DEFAULT_TEMPLATE).sections.map((s) => [s.heading, s.guide]),
      'template shape kept',
    );
    assert.equal(parsed.sections[1].body, 'Now: turn 39.1', 'Current State replaced, not appended');
    assert.deepEqual(
      parsed.sections[9].body.split('\n'),
      expected
        .slice()
        .reverse()
        .map((l) => `- turn ${l}`),
    );
    assert.equal(isTemplateOnly(text, DEFAULT_TEMPLATE), false);

    const state = JSON.parse(fs.readFileSync(paths.state, 'utf8'));
    assert.equal(state.lastSummarizedMessageId, messageIds.get('39.1'));
    assert.match(state.lastSummarizedMessageId, /^msg_/);
    assert.equal(state.initialized, true);
    assert.equal(state.updates, 15);
    assert.equal(state.tokensAtLastUpdate, model.mainCalls.find((c) => c.turn === 39 && c.step === 1)?.context);
    assert.equal(state.toolCallsSinceUpdate, 1, 'turn 40 called one tool after the last update');
    assert.equal(typeof state.updatedAt, 'string');

    // Compaction reads the notes through its NotesSource port; SessionNotes is one as it is.
    const source: NotesSource = notes;
    const snapshot = await source.read();
    assert.equal(snapshot?.text, text);
    assert.equal(snapshot?.lastSummarizedMessageId, messageIds.get('39.1'));
    assert.equal(source.isEmpty(text), false);
    assert.equal(source.isEmpty(DEFAULT_TEMPLATE), true);
    assert.equal(await source.waitForUpdate(10), 'idle');

    // A reload picks up where this left off.
    const reloaded = new SessionNotes({ paths, configDir: dataDir });
    await reloaded.load();
    assert.deepEqual(reloaded.state, notes.state);
    notes.dispose();
    assert.equal(session.agent.hooks.afterModelResponse.size, 0);
    assert.equal(session.agent.hooks.afterTurn.size, 0);
  });

  it('the updater fork shares the conversation prefix and answers pending tool calls as not run', async () => {
    const { session, model } = await setup();
    const firstRequest = server.requests.length;
    model.startTurn(1, [
      { toolCalls: 1, grow: 2_500 },
      { toolCalls: 0, grow: 100 },
    ]);
    await session.agent.runTurn('go');
    const fork = model.forkCalls[0];
    assert.equal(`${fork.turn}.${fork.step}`, '1.1', 'init fired on the tool-call response');
    const main = server.requests.slice(firstRequest).find((r) => r.body.messages.length === 1);
    assert.ok(main);
    assert.deepEqual(fork.body.system, main.body.system);
    assert.deepEqual(fork.body.tools, main.body.tools);
    assert.ok(
      (server.requests.find((r) => r.body === fork.body)?.usage?.cache_read_input_tokens ?? 0) > 0,
      'the fork read the cached prefix',
    );
    const last = fork.body.messages[fork.body.messages.length - 1];
    assert.ok(Array.isArray(last.content));
    assert.equal(last.content[0].type, 'tool_result');
    assert.equal(last.content.length, 2);
    assert.match(JSON.stringify(last.content[0]), /Not run here/);
    // The main conversation never sees the fork.
    assert.ok(!JSON.stringify(session.agent.messages).includes('engram-session-notes-update'));
  });
});

describe('caps', () => {
  const BIG = Array.from({ length: NOTES_SECTION_CAP_TOKENS + 600 }, (_, i) => `step${i % 10}`).join(' ');

  function capModel(condenseFixes: boolean) {
    return (notesPath: string) =>
      new ScriptedModel(notesPath, (call) => {
        if (!call.first) return { content: [{ type: 'text', text: 'Done.' }] };
        if (call.prompt.includes('over its size limits')) {
          if (!condenseFixes) return { content: [{ type: 'text', text: 'Nothing to cut.' }] };
          return {
            content: [
              {
                type: 'tool_use',
                name: 'Edit',
                input: { file_path: notesPath, old_string: BIG, new_string: '- many small steps (condensed)' },
              },
            ],
          };
        }
        return {
          content: [
            {
              type: 'tool_use',
              name: 'Edit',
              input: { file_path: notesPath, old_string: WORKLOG_GUIDE, new_string: `${WORKLOG_GUIDE}\n${BIG}` },
            },
          ],
        };
      });
  }

  it('an update that blows a section cap gets one condense run, and the event says so', async () => {
    const { session, paths, model, events } = await setup(capModel(true));
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    await session.agent.runTurn('go');

    const firsts = model.forkCalls.filter((c) => c.first);
    assert.equal(firsts.length, 2, 'the update, then one condense run');
    assert.match(
      firsts[1].prompt,
      new RegExp(`section "Worklog": \\d+ tokens \\(limit ${NOTES_SECTION_CAP_TOKENS}\\)`),
    );
    assert.ok(firsts[1].notes.includes(BIG), 'the condense run sees the notes as they are now');
    const updated = events.find((e) => e.type === 'notesUpdated');
    assert.ok(updated && updated.type === 'notesUpdated');
    assert.equal(updated.condensed, true);
    assert.deepEqual(updated.overCap, { sections: [] });
    assert.equal(updated.agentIds.length, 2);
    assert.equal(updated.modelCalls, 2, 'one call each: a fork whose edits all applied ends there');
    assert.ok(updated.sections.every((s) => s.tokens <= NOTES_SECTION_CAP_TOKENS));
    assert.match(fs.readFileSync(paths.summary, 'utf8'), /many small steps \(condensed\)/);
    const state = JSON.parse(fs.readFileSync(paths.state, 'utf8'));
    assert.equal(state.condensed, true);
    assert.equal(state.condenseRuns, 1);
  });

  it('condenses at most once: notes still over the cap are reported, not retried', async () => {
    const { session, model, events } = await setup(capModel(false));
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    await session.agent.runTurn('go');
    assert.equal(model.forkCalls.filter((c) => c.first).length, 2);
    const updated = events.find((e) => e.type === 'notesUpdated');
    assert.ok(updated && updated.type === 'notesUpdated');
    assert.equal(updated.condensed, true);
    assert.deepEqual(
      updated.overCap.sections.map((s) => s.heading),
      ['Worklog'],
    );
  });
});

describe('user template', () => {
  it('a template at <dataDir>/session-memory/config/template.md shapes new notes', async () => {
    const template = '# Goal\n_What we are after_\n\n# Open questions\n_What is still unclear_\n';
    const { session, paths, model, events } = await setup(
      (notesPath) =>
        new ScriptedModel(notesPath, (call) =>
          call.first
            ? {
                content: [
                  {
                    type: 'tool_use',
                    name: 'Edit',
                    input: {
                      file_path: notesPath,
                      old_string: '_What we are after_',
                      new_string: '_What we are after_\nShip the parser fix.',
                    },
                  },
                ],
              }
            : { content: [{ type: 'text', text: 'Done.' }] },
        ),
    );
    fs.mkdirSync(path.dirname(userTemplatePath(dataDir)), { recursive: true });
    fs.writeFileSync(userTemplatePath(dataDir), template);
    model.startTurn(1, [{ toolCalls: 0, grow: 2_500 }]);
    await session.agent.runTurn('go');
    assert.deepEqual(
      events.find((e) => e.type === 'notesCreated'),
      { type: 'notesCreated', path: paths.summary, template: 'user' },
    );
    assert.equal(model.forkCalls[0].notes, template, 'the fork was shown the user template');
    assert.equal(
      fs.readFileSync(paths.summary, 'utf8'),
      template.replace('_What we are after_', '_What we are after_\nShip the parser fix.'),
    );
  });
});
