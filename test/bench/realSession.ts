// The bench session shaped like real work (issue #19): 40 turns on a generated Python project
// (pythonProject.ts), with 2-4 tool calls in most turns (several in one response, as models do), Read,
// Grep, Glob, Bash (cat, wc, grep, py_compile), 12 Edits and 1 Write, the edited files read again, and
// review turns that come back to files read many turns before. About half of the tool output is
// byte-identical to an earlier result: Reads of files that have not changed since, a `cat` repeated.
// The turns themselves are in realSessionPlan.ts; here the model plays them: each request is answered
// from where the conversation is (the tool-use ids say which turn and response they belong to).
import fs from 'node:fs';
import path from 'node:path';
import type { MessagesRequestBody, ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { SUMMARY_SECTIONS } from '../../src/core/compaction/summaryPrompt';
import { generateProject, type PyProject } from './pythonProject';
import { planSession, type Call, type TurnPlan } from './realSessionPlan';
import type { SessionScript } from './sessionChain';

/** Tool-use ids that say which turn, response and call they belong to, in the shape of real ones. */
function callId(turn: number, step: number, call: number): string {
  return `toolu_01${`bt${turn}s${step}c${call}`.padEnd(22, 'x')}`;
}

const CALL_ID = /^toolu_01bt(\d+)s(\d+)c\d+x*$/;

/**
 * Where the conversation is: the turn, and how many of its tool-calling responses were answered. The
 * newest user message with results or a prompt says it (a compaction keeps the newest messages).
 */
function position(body: MessagesRequestBody): { turn: number; step: number } {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i];
    if (m.role !== 'user') continue;
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const answered = blocks.map((b) => (b.type === 'tool_result' ? CALL_ID.exec(b.tool_use_id) : null)).find((x) => x);
    if (answered) return { turn: Number(answered[1]), step: Number(answered[2]) + 1 };
    // A summary lists every earlier prompt: the newest one counts.
    const asked = blocks.flatMap((b) =>
      b.type === 'text' ? [...b.text.matchAll(/Turn (\d+):/g)].map((x) => Number(x[1])) : [],
    );
    if (asked.length > 0) return { turn: Math.max(...asked), step: 0 };
  }
  throw new Error('bench: no turn found in the request');
}

function replyOf(turns: TurnPlan[], body: MessagesRequestBody): ScriptedReply {
  const { turn, step } = position(body);
  const plan = turns[turn - 1];
  if (!plan) throw new Error(`bench: no turn ${turn} in the plan`);
  if (step >= plan.steps.length) return { content: [{ type: 'text', text: plan.answer }] };
  const calls = plan.steps[step];
  return {
    content: [
      { type: 'text', text: `Let me ${calls.map(describe).join(', ')}.` },
      ...calls.map((c, i) => ({ type: 'tool_use' as const, id: callId(turn, step, i), name: c.name, input: c.input })),
    ],
  };
}

function describe(c: Call): string {
  const file = (key: string): string => path.basename(String(c.input[key]));
  switch (c.name) {
    case 'Read':
      return `read ${file('file_path')}`;
    case 'Grep':
      return `search for ${String(c.input.pattern)}`;
    case 'Glob':
      return `list ${String(c.input.pattern)}`;
    case 'Bash':
      return `run \`${String(c.input.command)}\``;
    case 'Edit':
      return `edit ${file('file_path')}`;
    case 'Write':
      return `write ${file('file_path')}`;
  }
}

/** A hand-over summary with every section, as a model would write it for this session. */
function summaryOf(turns: TurnPlan[], turn: number): string {
  const done = turns.slice(0, turn);
  const files = [
    ...new Set(
      done
        .flatMap((t) => t.steps.flat())
        .map((c) => c.input.file_path)
        .filter((f): f is string => typeof f === 'string'),
    ),
  ];
  const body: Record<(typeof SUMMARY_SECTIONS)[number], string> = {
    'Request and intent':
      'Get to know the project, fix the None handling of the traced function and its callers, rename a method, add an exporter, then review every change.',
    'Key concepts':
      'Modules work on dicts and one dataclass each; errors are per-module exception classes; tests are pytest functions per module.',
    Files: files
      .map((f) => {
        const changed = done.some((t) => t.steps.flat().some((c) => c.name !== 'Read' && c.input.file_path === f));
        return `- ${path.basename(f)}: read${changed ? ' and changed' : ''}`;
      })
      .join('\n'),
    'Errors and fixes': 'None given to the traced function raised a TypeError: now a clear error, with tests.',
    'Problem solving': 'Traced callers with Grep, read each module before editing it, compiled after each change.',
    'All user messages': done.map((t) => `- "${t.prompt}"`).join('\n'),
    'Pending tasks': 'Whatever the later turns ask.',
    'Current work': done.at(-1)?.prompt ?? '',
    'Next step': `Answer the next request after "${done.at(-1)?.prompt ?? ''}".`,
  };
  const sections = SUMMARY_SECTIONS.map((s, i) => `${i + 1}. ${s}:\n${body[s]}`).join('\n\n');
  return `<analysis>Went through the turns in order.</analysis>\n<summary>\n${sections}\n</summary>`;
}

/** The realistic session for a seed: the project it generates and the model's side of the 40 turns. */
export function realSession(seed: number): SessionScript {
  const project = generateProject(seed);
  const prompts = planSession(project, '/ws').map((t) => t.prompt);
  return {
    name: 'real',
    turns: prompts.length,
    allowedTools: 'Read,Grep,Glob,Bash,Edit,Write',
    prompt: (turn) => prompts[turn - 1],
    start: (ws) => {
      writeProject(project, ws);
      const turns = planSession(project, ws);
      return { reply: (body) => replyOf(turns, body), summary: (turn) => summaryOf(turns, turn) };
    },
    notesLine: (turn) => `Working through the requests; reached Turn ${turn}.`,
  };
}

/** The files, each with its own modification time so Glob's newest-first order is the same every run. */
function writeProject(project: PyProject, ws: string): void {
  let i = 0;
  const base = Date.UTC(2026, 0, 5) / 1000;
  for (const [rel, text] of project.files) {
    const file = path.join(ws, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    fs.utimesSync(file, base + i * 60, base + i * 60);
    i++;
  }
}
