// The notes updater may Edit the notes file and nothing else. Checked through a real fork against the
// test server: what the model gets back for each refused call, and what is (not) on disk afterwards.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attachSessionNotes } from '../../../../src/core/memory/sessionNotes/attach';
import { notesOnlyGate, sameFile } from '../../../../src/core/memory/sessionNotes/notesGate';
import { sessionNotesPaths } from '../../../../src/core/memory/sessionNotes/paths';
import { ReadFileState } from '../../../../src/core/tools/readFileState';
import { createDefaultTools } from '../../../../src/core/tools/defaultTools';
import { startSession } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';
import {
  CURRENT_GUIDE,
  lastToolResults,
  ScriptedModel,
  settleNotesAfterEach,
  WORKLOG_GUIDE,
  type ForkCall,
} from './sessionNotesHarness';

const server = useTestServer();
const settle = settleNotesAfterEach();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

describe('the notes updater permission rule', () => {
  it('refuses Edit of other files, Write, Bash and Read with a clear reason; Edit of the notes file works', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const other = path.join(workspace, 'other.txt');
    fs.writeFileSync(other, 'keep me\n');
    const { session } = await startSession(server, { workspace, dataDir });
    const paths = sessionNotesPaths(dataDir, workspace, session.sessionId);
    // Links made before the notes exist: one to the notes file (allowed), one to another file (refused).
    fs.symlinkSync(paths.summary, path.join(workspace, 'notes-link.md'));
    fs.symlinkSync(other, path.join(workspace, 'sneaky.md'));

    const calls: ForkCall[] = [];
    const model = new ScriptedModel(paths.summary, (call) => {
      calls.push(call);
      if (!call.first) return { content: [{ type: 'text', text: 'Done.' }] };
      return {
        content: [
          {
            type: 'tool_use',
            id: 'toolu_edit_other',
            name: 'Edit',
            input: { file_path: other, old_string: 'keep me', new_string: 'changed' },
          },
          {
            type: 'tool_use',
            id: 'toolu_edit_sneaky',
            name: 'Edit',
            input: { file_path: 'sneaky.md', old_string: 'keep me', new_string: 'changed' },
          },
          {
            type: 'tool_use',
            id: 'toolu_write',
            name: 'Write',
            input: { file_path: paths.summary, content: 'overwritten' },
          },
          { type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command: 'echo pwned > pwned.txt' } },
          { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: paths.summary } },
          {
            type: 'tool_use',
            id: 'toolu_edit_dotdot',
            name: 'Edit',
            input: {
              file_path: `${paths.dir}/../session-memory/summary.md`,
              old_string: WORKLOG_GUIDE,
              new_string: `${WORKLOG_GUIDE}\n- via dot-dot`,
            },
          },
          {
            type: 'tool_use',
            id: 'toolu_edit_link',
            name: 'Edit',
            input: { file_path: 'notes-link.md', old_string: CURRENT_GUIDE, new_string: `${CURRENT_GUIDE}\nvia link` },
          },
          {
            type: 'tool_use',
            id: 'toolu_edit_notes',
            name: 'Edit',
            input: { file_path: paths.summary, old_string: '- via dot-dot', new_string: '- via dot-dot, then direct' },
          },
        ],
      };
    });
    server.setResponder(model.responder);
    settle(attachSessionNotes(session.agent, { dataDir, thresholds: { initTokens: 1_000 }, awaitUpdates: true }));
    model.startTurn(1, [{ toolCalls: 0, grow: 1_500 }]);
    const result = await session.agent.runTurn('go');
    assert.equal(result.reason, 'end_turn');

    assert.equal(calls.length, 2);
    const results = lastToolResults(calls[1].body);
    const refused = (id: string, pattern: RegExp): void => {
      const r = results.get(id);
      assert.ok(r, id);
      assert.equal(r.isError, true, id);
      assert.match(r.content, pattern, id);
    };
    refused(
      'toolu_edit_other',
      new RegExp(`may only edit ${escapeRegExp(paths.summary)}; ${escapeRegExp(other)} is a different file`),
    );
    refused('toolu_edit_sneaky', /may only edit .*; sneaky\.md is a different file/);
    refused('toolu_write', /may only use Edit on .*; Write is not allowed here/);
    refused('toolu_bash', /may only use Edit on .*; Bash is not allowed here/);
    refused('toolu_read', /may only use Edit on .*; Read is not allowed here/);
    for (const id of ['toolu_edit_dotdot', 'toolu_edit_link', 'toolu_edit_notes']) {
      assert.equal(results.get(id)?.isError, false, `${id}: ${results.get(id)?.content}`);
      assert.match(results.get(id)?.content ?? '', /^Edited /);
    }

    assert.equal(fs.readFileSync(other, 'utf8'), 'keep me\n', 'the other file is untouched');
    assert.equal(fs.existsSync(path.join(workspace, 'pwned.txt')), false, 'Bash did not run');
    const notes = fs.readFileSync(paths.summary, 'utf8');
    assert.match(notes, /- via dot-dot, then direct\n/);
    assert.match(notes, /via link\n/);
    assert.match(notes, /^# Session Title\n/);
  });
});

describe('notesOnlyGate', () => {
  const tools = new Map(createDefaultTools().map((t) => [t.name, t]));

  it('decides on the resolved path, whatever the spelling', () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const notesPath = path.join(dataDir, 'session-memory', 'summary.md');
    fs.mkdirSync(path.dirname(notesPath), { recursive: true });
    fs.writeFileSync(notesPath, '# Session Title\n');
    const loop = path.join(workspace, 'loop.md');
    fs.symlinkSync(loop, loop);
    const gate = notesOnlyGate({ notesPath, cwd: dataDir, readFiles: new ReadFileState() });
    const edit = tools.get('Edit');
    assert.ok(edit);
    assert.deepEqual(gate(edit, { file_path: notesPath }), { allow: true });
    assert.deepEqual(
      gate(edit, { file_path: 'session-memory/summary.md' }),
      { allow: true },
      'relative to the fork cwd',
    );
    assert.deepEqual(gate(edit, { file_path: 'session-memory/./x/../summary.md' }), { allow: true });
    assert.equal(gate(edit, { file_path: 'session-memory/summary.md.bak' }).allow, false);
    assert.equal(gate(edit, { file_path: 'session-memory/state.json' }).allow, false, 'not even the sidecar');
    assert.equal(gate(edit, { file_path: loop }).allow, false, 'a symlink loop reaches nothing');
    assert.equal(sameFile(loop, loop), false);
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
