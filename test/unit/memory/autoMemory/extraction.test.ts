// Background extraction and the direct path, against the test server over real HTTP with the real tools:
// what gets written (with provenance), when extraction skips, the cursor, trailing runs, and the
// extraction agent's narrow permissions.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Agent } from '../../../../src/core/agent/agent';
import { readTranscript } from '../../../../src/core/conversation/transcriptReader';
import type { ApiMessage, ContentBlock, ToolResultBlock } from '../../../../src/core/conversation/types';
import {
  attachAutoMemory,
  prepareAutoMemory,
  type AutoMemoryHandle,
} from '../../../../src/core/memory/autoMemory/attach';
import {
  SKIP_MAIN_AGENT_WROTE,
  SKIP_NO_TOOLS,
  type AutoMemoryEvent,
} from '../../../../src/core/memory/autoMemory/extraction';
import { extractionCanUseTool, memoryWriteGate } from '../../../../src/core/memory/autoMemory/memoryPermissions';
import { EXTRACTION_MARKER } from '../../../../src/core/memory/autoMemory/memoryPrompts';
import { cursorFileFor } from '../../../../src/core/memory/autoMemory/messageCursor';
import { parseTopicFile } from '../../../../src/core/memory/autoMemory/topicFile';
import { createDefaultTools } from '../../../../src/core/tools/defaultTools';
import type { MessagesRequestBody } from '../../../../src/testServer/anthropicTestServer';
import { startSession, type Harness } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

let handle: AutoMemoryHandle | undefined;
// The extraction agent runs in the background: it must be done with the server and the folders first.
const server = useTestServer({ settle: () => stopAutoMemory() });
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

async function stopAutoMemory(): Promise<void> {
  await handle?.idle();
  handle?.dispose();
  handle = undefined;
}

interface Setup extends Omit<Harness, 'events'> {
  dir: string;
  events: AutoMemoryEvent[];
  agent: Agent;
}

async function setup(): Promise<Setup> {
  workspace = tempDir('engram-ws-');
  dataDir = tempDir('engram-data-');
  fs.writeFileSync(path.join(workspace, 'keep.txt'), 'keep me\n');
  const memory = await prepareAutoMemory(dataDir, workspace);
  let agent: Agent | undefined;
  const harness = await startSession(server, {
    workspace,
    dataDir,
    memory: memory.systemSlot,
    // Nobody may answer a prompt here: memory writes must not need one, everything else is denied.
    answer: () => 'deny',
    gate: memoryWriteGate(memory.dir, workspace, (t, i, c) => (agent as Agent).permissions.gate(t, i, c)),
  });
  agent = harness.session.agent;
  const events: AutoMemoryEvent[] = [];
  handle = attachAutoMemory(agent, { memoryDir: memory.dir, transcriptPath: harness.session.transcriptPath });
  handle.on((e) => events.push(e));
  return { ...harness, dir: memory.dir, events, agent };
}

const isExtraction = (body: MessagesRequestBody): boolean => lastUserText(body.messages).includes(EXTRACTION_MARKER);

function lastUserText(messages: ApiMessage[]): string {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user') return '';
  return typeof last.content === 'string'
    ? last.content
    : last.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

function results(body: MessagesRequestBody): ToolResultBlock[] {
  const last = body.messages[body.messages.length - 1];
  return (last.content as ContentBlock[]).filter((b): b is ToolResultBlock => b.type === 'tool_result');
}

const TOPIC = (sessionless: string) =>
  `---\nname: Real database in tests\ndescription: integration tests must hit a real database, not mocks\ntype: feedback\n---\n\n${sessionless}\n\n**Why:** mocked tests passed while a migration broke production.\n\n**How to apply:** any test touching the database.\n`;

async function transcriptUuids(file: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const l of (await readTranscript(file)).lines)
    if (typeof (l as { uuid?: unknown }).uuid === 'string') out.set((l as { uuid: string }).uuid, l.type);
  return out;
}

describe('background extraction', () => {
  it('writes a memory and its index line with provenance, then moves its cursor', async () => {
    const s = await setup();
    const topicPath = path.join(s.dir, 'feedback_real_db.md');
    const indexPath = path.join(s.dir, 'MEMORY.md');
    server.enqueue(
      { content: [{ type: 'text', text: 'Understood: real database for integration tests.' }] },
      // the extraction fork: read first, then write both files, then report
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: indexPath } }] },
      {
        content: [
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: topicPath, content: TOPIC('Integration tests use the real database.') },
          },
          {
            type: 'tool_use',
            name: 'Write',
            input: {
              file_path: indexPath,
              content: '- [Real DB in tests](feedback_real_db.md) — no mocks for the database\n',
            },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Saved feedback_real_db.md.' }] },
    );
    const first = server.requests.length;
    await s.agent.runTurn('Integration tests must hit the real database, never mocks. We got burned last quarter.');
    await handle?.idle();

    const forkFirst = server.requests[first + 1].body;
    assert.ok(isExtraction(forkFirst));
    assert.match(lastUserText(forkFirst.messages), /the last 2 messages above/);
    assert.deepEqual(forkFirst.system, server.requests[first].body.system, 'the fork shares the system prompt');
    assert.match(JSON.stringify(forkFirst.system), /Memory folder: /);

    const parsed = parseTopicFile(fs.readFileSync(topicPath));
    assert.ok(!parsed.binary);
    if (parsed.binary) return;
    assert.equal(parsed.type, 'feedback');
    assert.equal(parsed.data.originSessionId, s.session.sessionId);
    const uuids = await transcriptUuids(s.session.transcriptPath);
    assert.equal(
      uuids.get(String(parsed.data.originMessageId)),
      'assistant',
      'the origin is the last message the run covered',
    );
    assert.equal(
      fs.readFileSync(indexPath, 'utf8'),
      '- [Real DB in tests](feedback_real_db.md) — no mocks for the database\n',
    );
    assert.deepEqual(
      s.events.filter((e) => e.type === 'memorySaved'),
      [{ type: 'memorySaved', file: 'feedback_real_db.md', title: 'Real DB in tests', by: 'extraction' }],
    );
    const done = s.events.find((e) => e.type === 'extractionDone');
    assert.ok(done && done.type === 'extractionDone' && done.modelCalls === 3);

    const cursor = JSON.parse(fs.readFileSync(cursorFileFor(s.session.transcriptPath), 'utf8')) as {
      lastMemoryMessageUuid: string;
    };
    assert.equal(cursor.lastMemoryMessageUuid, parsed.data.originMessageId);

    // The next run sees only the new turn.
    server.enqueue(
      { content: [{ type: 'text', text: 'Sure.' }] },
      { content: [{ type: 'text', text: 'nothing to save' }] },
    );
    await s.agent.runTurn('Thanks.');
    await handle?.idle();
    assert.match(lastUserText(server.requests[server.requests.length - 1].body.messages), /the last 2 messages above/);
    assert.match(
      lastUserText(server.requests[server.requests.length - 1].body.messages),
      /- feedback_real_db\.md \[feedback\]: integration tests must hit/,
    );
  });

  it('skips a turn in which the main agent saved memory, and moves the cursor past it', async () => {
    const s = await setup();
    const topicPath = path.join(s.dir, 'user_pnpm.md');
    server.enqueue(
      {
        content: [
          {
            type: 'tool_use',
            name: 'Write',
            input: {
              file_path: topicPath,
              content:
                '---\nname: pnpm\ndescription: this repository uses pnpm, never npm\ntype: project\n---\n\nUse pnpm.\n',
            },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Saved.' }] },
    );
    const before = server.requests.length;
    await s.agent.runTurn('Remember: this repo uses pnpm, not npm.');
    await handle?.idle();

    assert.deepEqual(s.asked, [], 'no permission prompt for a memory write');
    assert.equal(server.requests.length, before + 2, 'no extraction call');
    assert.deepEqual(
      s.events.filter((e) => e.type === 'extractionSkipped'),
      [{ type: 'extractionSkipped', reason: SKIP_MAIN_AGENT_WROTE }],
    );
    assert.deepEqual(
      s.events.filter((e) => e.type === 'memorySaved'),
      [{ type: 'memorySaved', file: 'user_pnpm.md', title: 'pnpm', by: 'user' }],
    );
    const parsed = parseTopicFile(fs.readFileSync(topicPath));
    assert.ok(!parsed.binary && parsed.data.originSessionId === s.session.sessionId);
    const uuids = await transcriptUuids(s.session.transcriptPath);
    assert.equal(
      !parsed.binary && uuids.get(String(parsed.data.originMessageId)),
      'user',
      'the origin is the prompt that asked',
    );
    assert.equal(
      fs.readFileSync(path.join(s.dir, 'MEMORY.md'), 'utf8'),
      '- [pnpm](user_pnpm.md) — this repository uses pnpm, never npm\n',
      'the forgotten index line was added',
    );

    // The cursor moved: the next extraction sees only the next turn.
    server.enqueue(
      { content: [{ type: 'text', text: 'ok' }] },
      { content: [{ type: 'text', text: 'nothing to save' }] },
    );
    await s.agent.runTurn('And use Node 20.');
    await handle?.idle();
    assert.match(lastUserText(server.requests[server.requests.length - 1].body.messages), /the last 2 messages above/);
  });

  it('runs once more after a run during which it was triggered twice', async () => {
    const s = await setup();
    let extractions = 0;
    server.setResponder((body) => {
      if (!isExtraction(body)) return { content: [{ type: 'text', text: `answer ${body.messages.length}` }] };
      extractions++;
      return { content: [{ type: 'text', text: 'nothing to save' }], ...(extractions === 1 ? { delayMs: 400 } : {}) };
    });
    await s.agent.runTurn('one');
    await s.agent.runTurn('two');
    await s.agent.runTurn('three');
    await handle?.idle();
    const started = s.events.filter((e) => e.type === 'extractionStarted');
    assert.deepEqual(started, [
      { type: 'extractionStarted', newMessages: 2, trailing: false },
      { type: 'extractionStarted', newMessages: 4, trailing: true },
    ]);
    assert.equal(extractions, 2);
    assert.equal(s.events.filter((e) => e.type === 'extractionDone').length, 2);
  });

  it('starts from the first message when its cursor message is gone (after a compaction)', async () => {
    const s = await setup();
    server.enqueue(
      { content: [{ type: 'text', text: 'a1' }] },
      { content: [{ type: 'text', text: 'nothing to save' }] },
    );
    await s.agent.runTurn('q1');
    await handle?.idle();
    s.agent.replaceMessages([
      { role: 'user', content: 'Summary of the earlier conversation.' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ]);
    server.enqueue(
      { content: [{ type: 'text', text: 'a2' }] },
      { content: [{ type: 'text', text: 'nothing to save' }] },
    );
    await s.agent.runTurn('q2');
    await handle?.idle();
    assert.match(lastUserText(server.requests[server.requests.length - 1].body.messages), /the last 4 messages above/);
  });

  it('denies the extraction agent everything but reading, read-only Bash and writes inside the folder', async () => {
    const s = await setup();
    const outsideFile = path.join(workspace, 'evil.md');
    fs.mkdirSync(s.dir, { recursive: true });
    fs.symlinkSync(workspace, path.join(s.dir, 'escape'));
    const denied: Array<{ name: string; input: Record<string, unknown> }> = [
      { name: 'Write', input: { file_path: outsideFile, content: 'x' } },
      { name: 'Write', input: { file_path: `${s.dir}/../evil.md`, content: 'x' } },
      { name: 'Write', input: { file_path: path.join(s.dir, 'escape', 'evil.md'), content: 'x' } },
      { name: 'Edit', input: { file_path: path.join(workspace, 'keep.txt'), old_string: 'keep', new_string: 'lost' } },
      { name: 'Bash', input: { command: 'rm keep.txt' } },
      { name: 'Bash', input: { command: 'cat keep.txt > copy.txt' } },
      { name: 'Bash', input: { command: 'ls; rm keep.txt' } },
      { name: 'Bash', input: { command: 'echo $(rm keep.txt)' } },
    ];
    server.enqueue(
      { content: [{ type: 'text', text: 'ok' }] },
      {
        content: [
          ...denied.map((d) => ({ type: 'tool_use' as const, name: d.name, input: d.input })),
          { type: 'tool_use', name: 'Read', input: { file_path: path.join(workspace, 'keep.txt') } },
          { type: 'tool_use', name: 'Bash', input: { command: 'ls' } },
        ],
      },
      { content: [{ type: 'text', text: 'nothing to save' }] },
    );
    await s.agent.runTurn('hello');
    await handle?.idle();
    const answers = results(server.requests[server.requests.length - 1].body);
    assert.equal(answers.length, denied.length + 2);
    for (const a of answers.slice(0, denied.length)) {
      assert.equal(a.is_error, true);
      assert.match(String(a.content), /^Denied: the memory agent may/);
    }
    assert.ok(
      !answers[denied.length].is_error && /keep me/.test(String(answers[denied.length].content)),
      'Read anywhere',
    );
    assert.ok(
      !answers[denied.length + 1].is_error && /keep\.txt/.test(String(answers[denied.length + 1].content)),
      'read-only Bash',
    );
    assert.equal(fs.readFileSync(path.join(workspace, 'keep.txt'), 'utf8'), 'keep me\n');
    assert.deepEqual(fs.readdirSync(workspace).sort(), ['keep.txt']);
    assert.deepEqual(
      s.events.filter((e) => e.type === 'memorySaved'),
      [],
    );
  });
});

describe('untrusted workspaces', () => {
  it('skip extraction: no tools are offered, so nothing could be saved', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const memory = await prepareAutoMemory(dataDir, workspace);
    const { session } = await startSession(server, { workspace, dataDir, trusted: false });
    const events: AutoMemoryEvent[] = [];
    handle = attachAutoMemory(session.agent, { memoryDir: memory.dir });
    handle.on((e) => events.push(e));
    server.enqueue({ content: [{ type: 'text', text: 'hi' }] });
    const before = server.requests.length;
    await session.agent.runTurn('hello');
    await handle.idle();
    assert.equal(server.requests.length, before + 1);
    assert.deepEqual(events, [{ type: 'extractionSkipped', reason: SKIP_NO_TOOLS }]);
  });
});

describe('extractionCanUseTool', () => {
  it('decides by tool and by where the path really leads', async () => {
    const ws = tempDir('engram-gate-');
    workspace = ws;
    dataDir = tempDir('engram-gate-data-');
    const dir = path.join(dataDir, 'memory');
    fs.mkdirSync(dir);
    const tools = new Map(createDefaultTools().map((t) => [t.name, t]));
    const gate = extractionCanUseTool(dir, ws);
    const allow = async (name: string, input: Record<string, unknown>): Promise<boolean> =>
      (await gate(tools.get(name) ?? { ...tools.get('Read')!, name }, input)).allow;
    assert.equal(await allow('Read', { file_path: '/etc/hostname' }), true);
    assert.equal(await allow('Grep', { pattern: 'x', path: '/' }), true);
    assert.equal(await allow('Glob', { pattern: '**/*' }), true);
    assert.equal(await allow('Bash', { command: "find . -name '*.md' | head -5" }), true);
    assert.equal(await allow('Bash', { command: 'find . -delete' }), false);
    assert.equal(await allow('Bash', { command: 'git status' }), false);
    assert.equal(await allow('Write', { file_path: path.join(dir, 'a.md'), content: '' }), true);
    assert.equal(
      await allow('Edit', { file_path: path.join(dir, 'MEMORY.md'), old_string: 'a', new_string: 'b' }),
      true,
    );
    assert.equal(await allow('Write', { file_path: path.join(dir, 'run.sh'), content: '' }), false);
    assert.equal(await allow('Write', { file_path: path.join(dir, '.trash', 'a.md'), content: '' }), false);
    assert.equal(
      await allow('Write', { file_path: 'a.md', content: '' }),
      false,
      'relative paths resolve against the workspace',
    );
    assert.equal(await allow('WebFetch', { url: 'https://example.com' }), false);
  });
});
