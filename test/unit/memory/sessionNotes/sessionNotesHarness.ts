// A scripted model for the session-notes tests: one responder answers both the main conversation and
// the notes updater's forks, told apart by the updater's marker. Main replies come from a per-turn plan
// with usage numbers that make the context size exact; fork replies are Edit calls on the notes file
// unless a test scripts its own.
import { afterEach } from 'node:test';
import type { ContentBlock } from '../../../../src/core/conversation/types';
import { NOTES_UPDATE_MARKER } from '../../../../src/core/memory/sessionNotes/prompts';
import type { SessionNotes } from '../../../../src/core/memory/sessionNotes/updater';
import type { MessagesRequestBody, ScriptedBlock, ScriptedReply } from '../../../../src/testServer/anthropicTestServer';

export const CURRENT_GUIDE = '_What is in progress right now, what is still open, and the very next step_';
export const WORKLOG_GUIDE = '_One terse line per step: what was tried, what was done_';

/**
 * After each test, lets the notes it attached finish writing (a running update, the last turn's state
 * flush) and detaches them. Register it before useTempDirs(), so this runs before the folders go; pass
 * each attached SessionNotes to the returned function.
 */
export function settleNotesAfterEach(): (notes: SessionNotes) => SessionNotes {
  const attached: SessionNotes[] = [];
  afterEach(async () => {
    for (const notes of attached.splice(0)) {
      await notes.waitForUpdate(10_000);
      await notes.flushState();
      notes.dispose();
    }
  });
  return (notes) => {
    attached.push(notes);
    return notes;
  };
}

export interface MainStep {
  /** tool_use blocks in this response (0: a plain answer that ends the turn). */
  toolCalls: number;
  /** How much the context grows with this response. */
  grow: number;
}

export interface ForkCall {
  body: MessagesRequestBody;
  /** The updater's message (update or condense instruction). */
  prompt: string;
  /** The notes as the prompt shows them. */
  notes: string;
  /** True on the fork's first request (its last message is the instruction, not tool results). */
  first: boolean;
  turn: number;
  /** 1-based main response of the turn the fork started after. */
  step: number;
}

export type ForkScript = (call: ForkCall) => ScriptedReply;

export class ScriptedModel {
  turn = 0;
  step = 0;
  context = 0;
  readonly forkCalls: ForkCall[] = [];
  readonly mainCalls: Array<{ turn: number; step: number; context: number }> = [];
  private plan: MainStep[] = [];
  forkScript: ForkScript;

  constructor(
    private readonly notesPath: string,
    forkScript?: ForkScript,
  ) {
    this.forkScript = forkScript ?? ((call) => standardForkReply(call, this.notesPath));
  }

  /** The main replies of the next turn. */
  startTurn(turn: number, plan: MainStep[]): void {
    this.turn = turn;
    this.step = 0;
    this.plan = plan.slice();
  }

  get planLeft(): number {
    return this.plan.length;
  }

  readonly responder = (body: MessagesRequestBody): ScriptedReply | undefined => {
    const prompt = updaterPrompt(body);
    if (prompt !== undefined) {
      const call: ForkCall = {
        body,
        prompt,
        notes: notesIn(prompt),
        first: lastHasMarker(body),
        turn: this.turn,
        step: this.step,
      };
      this.forkCalls.push(call);
      return this.forkScript(call);
    }
    const next = this.plan.shift();
    if (!next) return undefined;
    this.step++;
    this.context += next.grow;
    this.mainCalls.push({ turn: this.turn, step: this.step, context: this.context });
    const content: ScriptedBlock[] =
      next.toolCalls === 0
        ? [{ type: 'text', text: `Answer ${this.turn}.${this.step}.` }]
        : [
            { type: 'text', text: `Looking around (${this.turn}.${this.step}).` },
            ...Array.from(
              { length: next.toolCalls },
              (): ScriptedBlock => ({ type: 'tool_use', name: 'Glob', input: { pattern: '*.md' } }),
            ),
          ];
    // Exact context: usageTotal() of this response is `this.context`.
    return {
      content,
      usage: {
        input_tokens: this.context - 10,
        output_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    };
  };
}

/** Edits Current State (replacing its line) and prepends a Worklog line; then says it is done. */
export function standardForkReply(call: ForkCall, notesPath: string): ScriptedReply {
  if (!call.first) return { content: [{ type: 'text', text: 'Notes updated.' }] };
  const label = `turn ${call.turn}.${call.step}`;
  const lines = call.notes.split('\n');
  const i = lines.indexOf(CURRENT_GUIDE);
  const previous = i >= 0 && lines[i + 1]?.startsWith('Now: ') ? lines[i + 1] : undefined;
  return {
    content: [
      {
        type: 'tool_use',
        name: 'Edit',
        input: {
          file_path: notesPath,
          old_string: previous ? `${CURRENT_GUIDE}\n${previous}` : CURRENT_GUIDE,
          new_string: `${CURRENT_GUIDE}\nNow: ${label}`,
        },
      },
      {
        type: 'tool_use',
        name: 'Edit',
        input: { file_path: notesPath, old_string: WORKLOG_GUIDE, new_string: `${WORKLOG_GUIDE}\n- ${label}` },
      },
    ],
  };
}

/** The updater's instruction in a request, or undefined for a main-conversation request. */
export function updaterPrompt(body: MessagesRequestBody): string | undefined {
  for (const m of body.messages) {
    if (m.role !== 'user') continue;
    const blocks: ContentBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) if (b.type === 'text' && b.text.startsWith(NOTES_UPDATE_MARKER)) return b.text;
  }
  return undefined;
}

function notesIn(prompt: string): string {
  const start = prompt.indexOf('<notes>\n');
  const end = prompt.lastIndexOf('\n</notes>');
  return start >= 0 && end > start ? prompt.slice(start + '<notes>\n'.length, end) : '';
}

/** The fork's first request ends with the instruction (after "not run here" answers, if the parent waited on tools). */
function lastHasMarker(body: MessagesRequestBody): boolean {
  const last = body.messages[body.messages.length - 1];
  if (!last || last.role !== 'user') return false;
  if (typeof last.content === 'string') return last.content.startsWith(NOTES_UPDATE_MARKER);
  return last.content.some((b) => b.type === 'text' && b.text.startsWith(NOTES_UPDATE_MARKER));
}

/** tool_result blocks of the last message of a request, by tool_use id. */
export function lastToolResults(body: MessagesRequestBody): Map<string, { content: string; isError: boolean }> {
  const out = new Map<string, { content: string; isError: boolean }>();
  const last = body.messages[body.messages.length - 1];
  if (!Array.isArray(last?.content)) return out;
  for (const b of last.content) {
    if (b.type !== 'tool_result') continue;
    const content =
      typeof b.content === 'string' ? b.content : b.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    out.set(b.tool_use_id, { content, isError: b.is_error === true });
  }
  return out;
}
