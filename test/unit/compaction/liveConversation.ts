// A live conversation in one process without a server, for the replay tests: an Agent writing its
// transcript, an orchestrator on it, a model that calls an output tool of chosen sizes, answers,
// writes summaries when asked and reports usage from the request's size; and "resume", which opens the
// transcript the way a resumed session does (recorded cuts replayed, compactions back as events).
import fs from 'node:fs';
import path from 'node:path';
import { Agent } from '../../../src/core/agent/agent';
import { staticNotesSource } from '../../../src/core/compaction/notesSource';
import { CompactionOrchestrator } from '../../../src/core/compaction/orchestrator';
import { loadReplayedConversation, recordedEvents } from '../../../src/core/compaction/recordedCompactions';
import type { CompactionSettings } from '../../../src/core/compaction/settings';
import { SUMMARY_REQUEST_MARKER } from '../../../src/core/compaction/summaryPrompt';
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import type { ApiMessage, AssistantBlock } from '../../../src/core/conversation/types';
import { PromptTooLongError } from '../../../src/core/llm/errors';
import type { ModelClient, ModelRequest, ModelResponse, StreamHandlers } from '../../../src/core/llm/modelClient';
import type { Tool } from '../../../src/core/tools/tool';
import { outputTool as makeOutputTool } from '../support/outputTool';

export const NOTES =
  '# Session Title\n_A title_\nReplay test\n\n# Current State\n_Now?_\nProducing output of several sizes.';
const SUMMARY = '<analysis>a</analysis><summary>1. Request and intent: produce output.\n9. Next step: none.</summary>';

/** Prints `size` characters (mixed text, so cuts land on multi-unit characters too). */
/** Mixed text, so cuts land on multi-unit characters too. */
export const outputTool: Tool = makeOutputTool({ fill: 'oé😀 ' });

/**
 * A size divisible by 3 asks for the same bytes every time (a file read again unchanged): the second
 * such call of one size is a repeat, sent as a note while the first copy is whole. Other sizes differ.
 */
function outputInput(size: number): Record<string, unknown> {
  return size % 3 === 0 ? { size, copy: 0 } : { size };
}

/** Answers from a queue of turns: each turn is the sizes of its tool calls, one call per response. */
export class LocalModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  private calls: number[] = [];
  private n = 0;
  /** The next request fails with "prompt is too long" (the reactive stage takes over). */
  tooLong = 0;

  plan(sizes: number[]): void {
    this.calls = sizes.slice();
  }

  async stream(req: ModelRequest, handlers: StreamHandlers): Promise<ModelResponse> {
    this.requests.push(req);
    const id = `msg_local_${++this.n}`;
    const size = JSON.stringify(req.messages).length;
    if (this.tooLong > 0) {
      this.tooLong--;
      throw new PromptTooLongError(
        `prompt is too long: ${size} tokens > ${Math.floor(size / 8)} maximum`,
        size,
        Math.floor(size / 8),
      );
    }
    const last = req.messages[req.messages.length - 1];
    const asksSummary = JSON.stringify(last?.content ?? '').includes(SUMMARY_REQUEST_MARKER);
    let content: AssistantBlock[];
    if (asksSummary) content = [{ type: 'text', text: SUMMARY }];
    else if (this.calls.length > 0)
      content = [
        { type: 'text', text: `calling ${this.n}` },
        { type: 'tool_use', id: `toolu_local_${this.n}`, name: 'Output', input: outputInput(this.calls.shift() ?? 0) },
      ];
    else content = [{ type: 'text', text: `answer ${this.n}` }];
    const usage = { input_tokens: Math.ceil(size / 4), output_tokens: 10 };
    handlers.onMessageStart?.(id, usage);
    return {
      id,
      model: req.model,
      content,
      stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      usage,
    };
  }
}

export interface Live {
  agent: Agent;
  orch: CompactionOrchestrator;
  model: LocalModel;
  file: string;
}

export function defaultSettings(extra: Partial<CompactionSettings> = {}): Partial<CompactionSettings> {
  return {
    contextWindow: 40_000,
    keepRecentToolResults: 2,
    toolResultChars: 400,
    keepMinTokens: 100,
    keepMaxTokens: 2_000,
    keepMinTextMessages: 1,
    ...extra,
  };
}

/** A new conversation, or the one the transcript holds when `messages` / `resumed` say so. */
export function openLive(
  dir: string,
  opts: {
    settings?: Partial<CompactionSettings>;
    model?: LocalModel;
    resumed?: Awaited<ReturnType<typeof loadReplayedConversation>>;
  } = {},
): Live {
  const file = path.join(dir, 'session.jsonl');
  const model = opts.model ?? new LocalModel();
  const r = opts.resumed;
  const transcript = new TranscriptWriter({
    file,
    sessionId: 'session',
    cwd: dir,
    version: 'test',
    parentUuid: r?.report.leafUuid ?? null,
  });
  const agent = new Agent({
    client: model,
    model: 'claude-test',
    maxTokens: 1_000,
    system: [{ type: 'text', text: 'You are a test.' }],
    tools: [outputTool],
    trusted: true,
    permissionPrompt: { ask: async () => 'allowOnce' },
    cwd: dir,
    sessionId: 'session',
    transcript,
    ...(r ? { messages: r.entries.map((e) => e.message) } : {}),
  });
  const orch = new CompactionOrchestrator({
    settings: opts.settings ?? defaultSettings(),
    notes: staticNotesSource({ text: NOTES }),
    readFile: async () => undefined,
    ...(r ? { events: recordedEvents(r.records).active } : {}),
  });
  orch.attach(agent);
  return { agent, orch, model, file };
}

/** Opens the transcript again as a resumed session would (same model, so its queue goes on). */
export async function resumeLive(dir: string, live: Live, settings?: Partial<CompactionSettings>): Promise<Live> {
  await live.agent.transcript?.flush();
  // Nothing written yet: a new conversation, as the session would start one.
  const resumed = fs.existsSync(live.file) ? await loadReplayedConversation(live.file) : undefined;
  return openLive(dir, { model: live.model, ...(resumed ? { resumed } : {}), ...(settings ? { settings } : {}) });
}

/** The conversation as a resumed session reads it back. */
export async function readBack(live: Live): Promise<{ messages: ApiMessage[]; warnings: string[]; replayed: number }> {
  await live.agent.transcript?.flush();
  if (!fs.existsSync(live.file)) return { messages: [], warnings: [], replayed: 0 };
  const r = await loadReplayedConversation(live.file);
  return { messages: r.entries.map((e) => e.message), warnings: r.replay.warnings, replayed: r.replay.replayed };
}
