// Issue #19, ask 1: a tool result identical to one the request still carries whole goes to the model as
// a note naming the earlier call; the transcript keeps the full output (with the note beside it), the
// chat's event carries the full output, and a resumed process sends the note again, byte for byte, also
// after the copy it names was compacted away.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { CompactionOrchestrator } from '../../../src/core/compaction/orchestrator';
import { staticNotesSource } from '../../../src/core/compaction/notesSource';
import { loadReplayedConversation } from '../../../src/core/compaction/recordedCompactions';
import { CHANGE_NOTE_PREFIX, REPEAT_NOTE_PREFIX } from '../../../src/core/conversation/repeatedResults';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { ApiMessage, UserLine } from '../../../src/core/conversation/types';
import { createDefaultTools } from '../../../src/core/tools/defaultTools';
import type { ScriptedReply } from '../../../src/testServer/anthropicTestServer';
import { assertApiValid, assertTranscriptMatches, startSession, type Harness } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

beforeEach(() => {
  workspace = tempDir('engram-rep-ws-');
  dataDir = tempDir('engram-rep-data-');
  const lines = Array.from({ length: 80 }, (_, i) => `def step_${i}(x):\n    return x + ${i}\n`);
  fs.writeFileSync(path.join(workspace, 'app.py'), lines.join(''));
  fs.writeFileSync(path.join(workspace, 'small.txt'), 'short\n');
});

const read = (file: string): ScriptedReply => ({
  content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(workspace, file) } }],
});
const say = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }] });

/** Every tool_result the model got, in order. */
function results(messages: readonly ApiMessage[]): Array<{ id: string; text: string }> {
  return messages.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.flatMap((b) =>
          b.type === 'tool_result'
            ? [{ id: b.tool_use_id, text: typeof b.content === 'string' ? b.content : JSON.stringify(b.content) }]
            : [],
        ),
  );
}

async function open(extra: { sendRepeatsOnce?: boolean; resumeSessionId?: string } = {}): Promise<Harness> {
  return startSession(server, { workspace, dataDir, tools: createDefaultTools(), ...extra });
}

async function turn(h: Harness, prompt: string, ...replies: ScriptedReply[]): Promise<void> {
  server.enqueue(...replies);
  const r = await h.session.agent.runTurn(prompt);
  assert.equal(r.reason, 'end_turn');
}

describe('repeated tool output is sent once', () => {
  it('a second Read of an unchanged file goes as a note naming the first; transcript and chat keep the full output', async () => {
    const h = await open();
    await turn(h, 'read it', read('app.py'), say('read'));
    await turn(h, 'read it again', read('app.py'), say('same'));
    const [first, second] = results(h.session.agent.messages);
    assert.ok(first.text.length > 1_000 && !first.text.startsWith(REPEAT_NOTE_PREFIX));
    assert.ok(second.text.startsWith(REPEAT_NOTE_PREFIX), second.text);
    assert.match(
      second.text,
      new RegExp(`Read call \\(.*app\\.py.*\\), id ${first.id}: [\\d,]+ characters, unchanged`),
    );
    assert.match(second.text, /run the tool again/);
    // What the model got: the request after the second Read carries the note, and the first copy whole.
    const sent = results(server.requests.at(-1)!.body.messages as ApiMessage[]);
    assert.deepEqual(
      sent.map((r) => r.text),
      [first.text, second.text],
    );
    // The chat saw the whole output both times.
    const shown = h.events.flatMap((e) => (e.type === 'toolResult' ? [e.content] : []));
    assert.equal(shown.length, 2);
    assert.equal(shown[1], shown[0]);
    // The transcript keeps the full output, with the note sent beside it; read back, it is the note.
    await h.session.agent.transcript?.flush();
    const line = (await readTranscript(h.session.transcriptPath)).lines.find(
      (l) => l.type === 'user' && (l as UserLine).engramRepeat !== undefined,
    ) as UserLine;
    assert.deepEqual(line.engramRepeat, { of: first.id, note: second.text });
    const kept = (line.message.content as Array<{ type: string; content?: unknown }>)[0];
    assert.equal(kept.content, first.text);
    await assertTranscriptMatches(h.session.transcriptPath, h.session.agent.messages);
    assertApiValid(h.session.agent.messages);
  });

  it('a resumed process decides from the transcript: its next request starts with the bytes the last one sent', async () => {
    const h = await open();
    await turn(h, 'read it', read('app.py'), say('read'));
    await turn(h, 'read it again', read('app.py'), say('same'));
    // Cache breakpoints move from request to request; the content is what must not.
    const bytes = (messages: unknown): string =>
      JSON.stringify(messages, (k, v: unknown) => (k === 'cache_control' ? undefined : v));
    const lastSent = bytes(server.requests.at(-1)!.body.messages);
    const resumed = await open({ resumeSessionId: h.session.sessionId });
    await turn(resumed, 'and once more', read('app.py'), say('still the same'));
    const firstOfResumed = server.requests.at(-2)!.body.messages as ApiMessage[];
    assert.ok(bytes(firstOfResumed).startsWith(lastSent.slice(0, -1)), 'the prefix is byte-identical');
    const all = results(resumed.session.agent.messages);
    assert.equal(all.length, 3);
    assert.equal(
      resumed.session.resumed?.fullOutputs.get(all[1].id),
      all[0].text,
      'the chat gets the full output of the note read back',
    );
    assert.ok(
      all[2].text.startsWith(REPEAT_NOTE_PREFIX) && all[2].text.includes(`id ${all[0].id}:`),
      'the third copy names the first too',
    );
  });

  it('a cat of a file read goes as a note; a file read again after a small change goes as a diff against the whole earlier copy', async () => {
    const h = await open();
    await turn(h, 'read it', read('app.py'), say('read'));
    await turn(
      h,
      'cat it',
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'cat app.py' } }] },
      say('same lines'),
    );
    const file = path.join(workspace, 'app.py');
    fs.writeFileSync(file, `# header\n${fs.readFileSync(file, 'utf8').replace('return x + 5\n', 'return x + 500\n')}`);
    await turn(h, 'read it after the change', read('app.py'), say('changed'));
    const [first, cat, second] = results(h.session.agent.messages);
    assert.ok(cat.text.startsWith(`${REPEAT_NOTE_PREFIX}Read call`), cat.text);
    assert.match(cat.text, new RegExp(`id ${first.id} \\(there with line numbers\\)`));
    assert.ok(second.text.startsWith(CHANGE_NOTE_PREFIX), second.text.slice(0, 200));
    assert.match(second.text, new RegExp(`id ${first.id}; only what changed is shown`));
    // Line numbers are left out of the diff, so the line added on top does not make every line differ.
    assert.match(second.text, /\n@@ -1,1 \+1,2 @@\n\+# header\n def step_0\(x\):/);
    assert.match(second.text, /@@ -11,3 \+12,3 @@\n def step_5\(x\):\n-    return x \+ 5\n\+    return x \+ 500\n/);
    assert.ok(second.text.length < first.text.length / 4);
    await assertTranscriptMatches(h.session.transcriptPath, h.session.agent.messages);
    assertApiValid(h.session.agent.messages);
  });

  it('sends the file whole again once it changed much, for a short output, for an error, and with the setting off', async () => {
    const h = await open();
    await turn(h, 'read it', read('app.py'), say('read'));
    fs.writeFileSync(
      path.join(workspace, 'app.py'),
      fs.readFileSync(path.join(workspace, 'app.py'), 'utf8').replaceAll('return x +', 'return x -'),
    );
    await turn(h, 'read it after the change', read('app.py'), say('changed'));
    await turn(h, 'small', read('small.txt'), read('small.txt'), say('small'));
    await turn(h, 'missing', read('missing.py'), read('missing.py'), say('missing'));
    assert.equal(results(h.session.agent.messages).filter((r) => r.text.startsWith(REPEAT_NOTE_PREFIX)).length, 0);

    const off = await open({ sendRepeatsOnce: false });
    await turn(off, 'read it', read('app.py'), say('read'));
    await turn(off, 'again', read('app.py'), say('same'));
    const [a, b] = results(off.session.agent.messages);
    assert.equal(b.text, a.text, 'sent whole with sendRepeatsOnce off');
  });

  it('a note outlives the copy it names: after a compaction drops that copy, it still reads back as sent', async () => {
    const h = await open();
    const orch = new CompactionOrchestrator({
      settings: {
        contextWindow: 100_000,
        keepMinTokens: 10,
        keepMaxTokens: 2_000,
        keepMinTextMessages: 1,
        auto: false,
      },
      notes: staticNotesSource({
        text: '# Session Title\n_A title_\nRepeats\n\n# Current State\n_Now?_\nReading app.py twice.',
      }),
    });
    orch.attach(h.session.agent);
    await turn(h, 'read it', read('app.py'), say('read'));
    await turn(h, 'read it again', read('app.py'), say('same'));
    const note = results(h.session.agent.messages)[1];
    const done = await orch.compactNow('session-memory');
    assert.equal(done.ok, true, JSON.stringify(done));
    const left = results(h.session.agent.messages);
    assert.deepEqual(left, [note], 'only the note is left, its copy was replaced by the notes');
    const back = await loadReplayedConversation(h.session.transcriptPath);
    assert.equal(JSON.stringify(back.entries.map((e) => e.message)), JSON.stringify(h.session.agent.messages));
    await turn(h, 'go on', say('going on'));
    assert.ok(JSON.stringify(server.requests.at(-1)!.body.messages).includes(note.text));
  });
});
