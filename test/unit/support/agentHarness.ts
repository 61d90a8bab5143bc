// Shared setup for the agent tests: a session on the test server over a workspace and a data dir, and
// helpers to read what the agent wrote and check it the way the API would.
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../src/core/agent/events';
import { openSession, type OpenedSession, type SessionSetup } from '../../../src/core/session/agentSession';
import { loadReplayedConversation } from '../../../src/core/compaction/recordedCompactions';
import type { ApiMessage, ToolSchema } from '../../../src/core/conversation/types';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { PermissionPrompt, PermissionRequest, PermissionAnswer } from '../../../src/core/ports';
import type { Tool, ToolResult } from '../../../src/core/tools/tool';
import type { TestServer } from '../../../src/testServer/anthropicTestServer';
import { validateMessagesRequest } from '../../../src/testServer/requestValidator';

export interface Harness {
  session: OpenedSession;
  events: AgentEvent[];
  asked: PermissionRequest[];
}

export async function startSession(
  server: TestServer,
  opts: {
    workspace: string;
    dataDir: string;
    answer?: (r: PermissionRequest) => PermissionAnswer;
  } & Partial<SessionSetup>,
): Promise<Harness> {
  const asked: PermissionRequest[] = [];
  const prompt: PermissionPrompt = {
    ask: async (r) => {
      asked.push(r);
      return (opts.answer ?? (() => 'allowOnce'))(r);
    },
  };
  const { workspace, answer: _answer, ...rest } = opts;
  const session = await openSession({
    cwd: workspace,
    client: new AnthropicModelClient({ apiKey: 'test-key', baseUrl: server.url }),
    model: 'claude-test',
    maxTokens: 2048,
    trusted: true,
    permissionPrompt: prompt,
    version: '0.0.0-test',
    entrypoint: 'test',
    retry: { policy: { baseDelayMs: 5, maxDelayMs: 20 } },
    ...rest,
  });
  const events: AgentEvent[] = [];
  session.agent.on((e) => events.push(e));
  return { session, events, asked };
}

/** The conversation as the API would get it next: the validator must accept it. */
export function assertApiValid(messages: readonly ApiMessage[]): void {
  const probe =
    messages[messages.length - 1]?.role === 'user'
      ? messages
      : [...messages, { role: 'user' as const, content: 'next' }];
  const invalid = validateMessagesRequest({ model: 'claude-test', max_tokens: 100, messages: probe });
  assert.equal(invalid, null, invalid ? invalid.message : '');
}

/**
 * Reading the transcript back as a resumed session does (recorded cuts replayed) gives the conversation the
 * agent holds.
 */
export async function assertTranscriptMatches(file: string, messages: readonly ApiMessage[]): Promise<void> {
  const read = await loadReplayedConversation(file);
  assert.deepEqual(read.corrupt, []);
  assert.deepEqual(read.replay.warnings, []);
  assert.deepEqual(asBlocks(read.entries.map((e) => e.message)), asBlocks(messages));
}

function asBlocks(messages: readonly ApiMessage[]): ApiMessage[] {
  return messages.map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
  }));
}

/** A tool for tests: records how many runs overlap, waits `delayMs`, answers `name:input.tag`. */
export function probeTool(
  name: string,
  opts: {
    concurrencySafe: boolean;
    readOnly?: boolean;
    delayMs?: number;
    log: string[];
    live: { now: number; max: number };
  },
): Tool {
  const schema: ToolSchema = {
    name,
    description: `Test tool ${name}.`,
    input_schema: { type: 'object', properties: { tag: { type: 'string' } } },
  };
  return {
    name,
    schema,
    readOnly: opts.readOnly ?? opts.concurrencySafe,
    concurrencySafe: opts.concurrencySafe,
    validate: () => null,
    summarize: (input) => `${name} ${String(input.tag)}`,
    run: async (input, ctx): Promise<ToolResult> => {
      opts.log.push(`start ${name}:${String(input.tag)}`);
      opts.live.now++;
      opts.live.max = Math.max(opts.live.max, opts.live.now);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, opts.delayMs ?? 30);
        ctx.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            resolve();
          },
          { once: true },
        );
      });
      opts.live.now--;
      opts.log.push(`end ${name}:${String(input.tag)}`);
      return { content: `${name}:${String(input.tag)}`, isError: false };
    },
  };
}

export function toolResults(
  messages: readonly ApiMessage[],
  index: number,
): Array<{ tool_use_id: string; content: unknown; is_error?: boolean }> {
  const m = messages[index];
  assert.equal(m.role, 'user');
  assert.ok(Array.isArray(m.content));
  return m.content.filter((b) => b.type === 'tool_result') as Array<{
    tool_use_id: string;
    content: unknown;
    is_error?: boolean;
  }>;
}
