// The one session both hosts drive. The guard against drift: the same script run through `engram -p`
// (turn by turn, resuming from the transcript) and through the session as the Chat view opens it sends
// the same requests. Also: settings changes reach the open session, the timeline is data in core, and
// the system prompt is rebuilt after a compaction in every host.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HEADLESS_NOTE, runPrint } from '../../../src/cli/printCommand';
import type { CliIo } from '../../../src/cli/command';
import { gaugeState } from '../../../src/core/inspection/contextSnapshot';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { PermissionPrompt } from '../../../src/core/ports';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import type { EngramSession } from '../../../src/core/session/engramSession';
import type { EngramSessionSetup } from '../../../src/core/session/sessionSetup';
import type { SessionEvent } from '../../../src/core/session/sessionEvents';
import { type RawSettings } from '../../../src/core/settings/engramSettings';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import {
  startTestServer,
  type LoggedRequest,
  type ScriptedReply,
  type TestServer,
} from '../../../src/testServer/anthropicTestServer';

const allowAll: PermissionPrompt = { ask: async () => 'allowOnce' };
let root: string;

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'engram-session-')));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A project folder (shared by the runs that are compared, since paths show in requests) and a data dir. */
function workspace(name: string, project = name): { cwd: string; dataDir: string } {
  const cwd = path.join(root, project, 'ws');
  const dataDir = path.join(root, name, 'data');
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(cwd, 'notes.txt'), 'the secret word is pineapple\n');
  return { cwd, dataDir };
}

/** A two-turn script: a Read and an answer, then a plain answer. Tool ids fixed so both runs match. */
function script(cwd: string): ScriptedReply[] {
  return [
    {
      content: [
        {
          type: 'tool_use',
          id: 'toolu_01AAAAAAAAAAAAAAAAAAAAAA',
          name: 'Read',
          input: { file_path: path.join(cwd, 'notes.txt') },
        },
      ],
    },
    { content: [{ type: 'text', text: 'The word is pineapple.' }] },
    { content: [{ type: 'text', text: 'It has eleven letters.' }] },
  ];
}
const PROMPTS = ['What is the secret word?', 'How long is it?'];

/** What a request is, without what legitimately differs between hosts (the headless note, paths). */
function comparable(r: LoggedRequest, dataDir: string): unknown {
  const text = JSON.stringify({
    model: r.body.model,
    max_tokens: r.body.max_tokens,
    system: r.body.system,
    tools: r.body.tools,
    messages: r.body.messages,
  });
  return JSON.parse(
    text.split(dataDir).join('<data>').split(JSON.stringify(HEADLESS_NOTE).slice(1, -1)).join('<host note>'),
  ) as unknown;
}

function io(cwd: string): CliIo & { out: string[] } {
  const out: string[] = [];
  return {
    out,
    stdout: (t) => out.push(t),
    stderr: (t) => out.push(t),
    env: { ANTHROPIC_API_KEY: 'k' },
    cwd,
    signal: new AbortController().signal,
  };
}

async function withServer<T>(fn: (server: TestServer) => Promise<T>): Promise<T> {
  const server = await startTestServer();
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

function chatSetup(
  server: TestServer,
  where: { cwd: string; dataDir: string },
  extra: Partial<EngramSessionSetup> = {},
): EngramSessionSetup {
  return {
    ...where,
    client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
    trusted: true,
    permissionPrompt: allowAll,
    version: '0.0.0-test',
    entrypoint: 'vscode',
    ...extra,
  };
}

describe('EngramSession', () => {
  it('sends the same requests from the CLI (resuming each turn) and from the chat (one process)', async () => {
    const cli = workspace('cli', 'same');
    const cliRequests = await withServer(async (server) => {
      server.enqueue(...script(cli.cwd));
      const client = new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url });
      const first = io(cli.cwd);
      const flags = ['--cwd', cli.cwd, '--data-dir', cli.dataDir, '--allowed-tools', 'Read', '--output-format', 'json'];
      assert.equal(await runPrint(['-p', PROMPTS[0], ...flags], first, client), 0, first.out.join(''));
      const sessionId = (JSON.parse(first.out.join('')) as { sessionId: string }).sessionId;
      const second = io(cli.cwd);
      assert.equal(
        await runPrint(['-p', PROMPTS[1], '--resume', sessionId, ...flags], second, client),
        0,
        second.out.join(''),
      );
      return server.requests.map((r) => comparable(r, cli.dataDir));
    });

    const chat = workspace('chat', 'same');
    const chatRequests = await withServer(async (server) => {
      server.enqueue(...script(chat.cwd));
      // The one documented difference: the CLI extracts memories only with --extract-memories.
      const session = await openEngramSession(
        chatSetup(server, chat, { systemNotes: [HEADLESS_NOTE] }),
        new SettingsStore({ 'memory.extraction.enabled': false }),
      );
      for (const prompt of PROMPTS) assert.equal((await session.runTurn(prompt)).reason, 'end_turn');
      await session.finish();
      return server.requests.map((r) => comparable(r, chat.dataDir));
    });

    assert.equal(cliRequests.length, 3);
    assert.equal(chatRequests.length, 3);
    assert.deepEqual(chatRequests, cliRequests);
  });

  it('follows a settings change: the orchestrator decides on the new window and marks, and listeners hear it', async () => {
    await withServer(async (server) => {
      const where = workspace('settings');
      const store = new SettingsStore({});
      const session = await openEngramSession(chatSetup(server, where), store);
      const events: SessionEvent[] = [];
      session.on((e) => events.push(e));
      assert.equal(session.compaction.settings.contextWindow, 200_000);
      const raw: RawSettings = { contextWindow: 50_000, 'compaction.microcompactPercent': 40 };
      store.update(raw);
      assert.equal(session.compaction.settings.contextWindow, 50_000);
      assert.equal(session.compaction.settings.microcompactPercent, 40);
      assert.ok(events.some((e) => e.type === 'settings' && e.settings.contextWindow === 50_000));
      assert.ok(events.some((e) => e.type === 'context'));
      session.dispose();
    });
  });

  it('puts compactions on its timeline, rebuilds the system prompt with memory saved since, and says so', async () => {
    await withServer(async (server) => {
      const where = workspace('timeline');
      fs.writeFileSync(path.join(where.cwd, 'big.txt'), 'x'.repeat(20_000));
      server.enqueue(
        {
          content: [
            {
              type: 'tool_use',
              id: 'toolu_01BBBBBBBBBBBBBBBBBBBBBB',
              name: 'Read',
              input: { file_path: path.join(where.cwd, 'big.txt') },
            },
          ],
        },
        { content: [{ type: 'text', text: 'Read it.' }] },
      );
      const session: EngramSession = await openEngramSession(
        chatSetup(server, where),
        new SettingsStore({ 'sessionNotes.enabled': false }),
      );
      const events: SessionEvent[] = [];
      session.on((e) => events.push(e));
      await session.runTurn('Read big.txt');
      const before = session.agent.systemPrompt;
      const memoryDir = session.memoryDir;
      assert.ok(memoryDir);
      fs.mkdirSync(memoryDir, { recursive: true });
      fs.writeFileSync(path.join(memoryDir, 'MEMORY.md'), '- [Tabs](user_tabs.md) — the user prefers tabs\n');
      server.enqueue({
        content: [
          {
            type: 'text',
            text: '<analysis>short</analysis>\n<summary>\n1. Primary Request and Intent: read big.txt\n2. Current Work: done\n</summary>',
          },
        ],
      });
      const result = await session.compactNow('full');
      assert.equal(result.ok, true, result.reason);
      assert.equal(session.timeline.length, 1);
      assert.equal(session.timeline[0].kind, 'compaction');
      assert.ok(events.some((e) => e.type === 'timeline'));
      assert.ok(events.some((e) => e.type === 'notice' && e.text.startsWith('Context compacted (full summary')));
      await waitFor(() => session.agent.systemPrompt !== before);
      assert.match(session.agent.systemPrompt.map((b) => b.text).join('\n'), /the user prefers tabs/);
      session.dispose();
    });
  });

  it('sizes the system prompt by its parts for the gauge, at open and after the rebuild', async () => {
    await withServer(async (server) => {
      const where = workspace('parts');
      fs.writeFileSync(path.join(where.cwd, 'CLAUDE.md'), 'Always run the tests. '.repeat(50));
      const session = await openEngramSession(chatSetup(server, where), new SettingsStore());
      const parts = Object.fromEntries(
        gaugeState(session.compaction.gauge, session.agent, session.settings).breakdown.map((c) => [
          c.category,
          c.tokens,
        ]),
      );
      assert.ok(parts.instructions > 100, `instructions ${parts.instructions}`);
      assert.ok(parts['memory index'] > 50, `memory index ${parts['memory index']}`);
      assert.ok(parts.system > 100);
      session.dispose();
    });
  });

  it('leaves out notes and extraction in an untrusted workspace, and memory when the setting is off', async () => {
    await withServer(async (server) => {
      const where = workspace('untrusted');
      const untrusted = await openEngramSession(chatSetup(server, where, { trusted: false }), new SettingsStore());
      assert.equal(untrusted.notes, undefined);
      untrusted.dispose();
      const noMemory = await openEngramSession(
        chatSetup(server, where),
        new SettingsStore({ 'memory.enabled': false }),
      );
      assert.equal(noMemory.memory, undefined);
      assert.ok(noMemory.notes);
      noMemory.dispose();
    });
  });
});

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
