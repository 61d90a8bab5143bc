// A session on the test server's simulated prompt cache, on one simulated clock, for the cost line's
// tests: the session's figures for the next request are checked against what the server then bills.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { PermissionPrompt } from '../../../src/core/ports';
import type { EngramSession } from '../../../src/core/session/engramSession';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { type RawSettings } from '../../../src/core/settings/engramSettings';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { estimateTokensFast } from '../../../src/core/tokens/tokenizer';
import { startTestServer, type LoggedRequest, type TestServer } from '../../../src/testServer/anthropicTestServer';

export const allowAll: PermissionPrompt = { ask: async () => 'allowOnce' };
export const MIN = 60_000;
export const QUIET: RawSettings = { 'sessionNotes.enabled': false, 'memory.enabled': false };

export interface Rig {
  server: TestServer;
  clock: { t: number };
  cwd: string;
  dataDir: string;
  open(settings: RawSettings, resumeSessionId?: string): Promise<EngramSession>;
}

/** Runs `fn` with a test server, a workspace holding big.txt (about 5K tokens) and a data folder. */
export async function withRig(tempDir: (prefix: string) => string, fn: (rig: Rig) => Promise<void>): Promise<void> {
  const clock = { t: Date.UTC(2026, 11, 4, 9) };
  const server = await startTestServer({ now: () => clock.t });
  const cwd = tempDir('engram-cache-ws-');
  const dataDir = tempDir('engram-cache-data-');
  // About 5K tokens: above the cache's minimum, so the conversation is cached.
  fs.writeFileSync(path.join(cwd, 'big.txt'), 'const value = compute(1, 2);\n'.repeat(700));
  const open = (settings: RawSettings, resumeSessionId?: string): Promise<EngramSession> =>
    openEngramSession(
      {
        cwd,
        dataDir,
        client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
        trusted: true,
        permissionPrompt: allowAll,
        version: '0.0.0-test',
        entrypoint: 'vscode',
        clock: { now: () => clock.t },
        ...(resumeSessionId ? { resumeSessionId } : {}),
      },
      new SettingsStore({ ...QUIET, ...settings }),
    );
  try {
    await fn({ server, clock, cwd, dataDir, open });
  } finally {
    await server.close();
  }
}

/** A turn that reads big.txt and answers: the context grows by a tool call, its result and two answers. */
export async function readTurn(rig: Rig, session: EngramSession, prompt: string): Promise<void> {
  rig.server.enqueue(
    { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(rig.cwd, 'big.txt') } }] },
    { content: [{ type: 'text', text: 'It computes one value, seven hundred times.' }] },
  );
  await session.runTurn(prompt);
}

export type Split = { read: number; write: number; input: number };

/** What the server billed a request for, by kind. */
export function billed(r: LoggedRequest | undefined): Split {
  const u = r?.usage;
  assert.ok(u, 'the request was answered');
  return { read: u.cache_read_input_tokens ?? 0, write: u.cache_creation_input_tokens ?? 0, input: u.input_tokens };
}

export const wholePrompt = (s: Split): number => s.read + s.write + s.input;

/** The estimate's whole prompt is within `share` of what the server billed for the request. */
export function assertNear(estimate: Split, sent: Split, share: number): void {
  const [est, total] = [wholePrompt(estimate), wholePrompt(sent)];
  assert.ok(Math.abs(est - total) <= share * total, `estimated ${est}, sent ${total}`);
}

/** The cost line's figures now, for a next message `prompt`, as the hosts ask for them. */
export function costNow(session: EngramSession, prompt = ''): ReturnType<EngramSession['promptCache']['cost']> {
  const gauge = session.compaction.gauge;
  const used = gauge.used(session.agent.messages);
  const words = estimateTokensFast(prompt) + 4;
  return session.promptCache.cost(session.settings.model, used, gauge.fixedTokens, words, gauge.measured);
}
