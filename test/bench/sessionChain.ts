// One bench session as a script would run it: a chain of `engram -p --resume` processes, one per turn,
// against the test server with its simulated prompt cache (server and CLI at the same window). The
// scripted model answers the main conversation through the session's script, and the two kinds of
// side request the way a model would: the notes updater's (an Edit of the notes file) and a full
// compaction's (a summary with every section). sessionCost.ts runs both sessions through this, and
// sessionAnalysis.ts reads what came back.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiMessage } from '../../src/core/conversation/types';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/compaction/summaryPrompt';
import { NOTES_UPDATE_MARKER } from '../../src/core/memory/sessionNotes/prompts';
import {
  startTestServer,
  type LoggedRequest,
  type MessagesRequestBody,
  type ScriptedReply,
} from '../../src/testServer/anthropicTestServer';

/** The model's side of a session in one workspace. */
export interface ScriptedModel {
  /** The next answer in the main conversation. */
  reply(body: MessagesRequestBody): ScriptedReply;
  /** A full compaction's summary of the first `turn` turns. */
  summary(turn: number): string;
}

export interface SessionScript {
  name: string;
  turns: number;
  /** --allowed-tools for every turn. */
  allowedTools: string;
  prompt(turn: number): string;
  /** Lays out the project in `ws` (a fresh folder per chain) and returns the model for it. */
  start(ws: string): ScriptedModel;
  /** The line the notes updater writes into the notes when it runs during `turn`. */
  notesLine(turn: number): string;
}

/** A policy is a --settings file (none: the defaults). */
export interface Policy {
  name: string;
  settings?: Record<string, unknown>;
}

export interface ToolCallFacts {
  id: string;
  name: string;
  turn: number;
  /** The output as the tool returned it: the transcript keeps it whole even when a note was sent. */
  result: string;
  isError: boolean;
}

export interface SessionRun {
  script: SessionScript;
  policy: Policy;
  window: number;
  requests: LoggedRequest[];
  /** When each turn's process was started (index 0 = turn 1). */
  turnStarts: number[];
  turnsOk: number;
  /** Turns whose first request came after a compaction in that process (its prefix changed on purpose). */
  compactedAtStart: Set<number>;
  compactions: Record<string, number>;
  calls: ToolCallFacts[];
  ms: number;
}

function lastMessage(body: MessagesRequestBody): ApiMessage {
  return body.messages[body.messages.length - 1];
}

export function isToolResult(m: ApiMessage): boolean {
  return Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result');
}

function latestTurn(text: string): number {
  return Math.max(0, ...[...text.matchAll(/Turn (\d+):/g)].map((m) => Number(m[1])));
}

/** Routes the notes updater's and the summariser's requests by their markers, the rest to the script. */
export function responder(script: SessionScript, model: ScriptedModel): (body: MessagesRequestBody) => ScriptedReply {
  return (body) => {
    const all = JSON.stringify(body.messages);
    if (all.includes(NOTES_UPDATE_MARKER)) {
      if (isToolResult(lastMessage(body))) return { content: [{ type: 'text', text: 'Notes updated.' }] };
      const notesPath = /\/[^\s`'"\\]*session-memory\/summary\.md/.exec(all)?.[0] ?? '';
      const guide = '_What is in progress right now, what is still open, and the very next step_\n';
      return {
        content: [
          {
            type: 'tool_use',
            name: 'Edit',
            input: {
              file_path: notesPath,
              old_string: guide,
              new_string: `${guide}${script.notesLine(latestTurn(all))}\n`,
            },
          },
        ],
      };
    }
    if (all.includes(SUMMARY_REQUEST_MARKER))
      return { content: [{ type: 'text', text: model.summary(latestTurn(all)) }] };
    return model.reply(body);
  };
}

/** Runs the script's turns at one window under one policy; throws when a turn's process fails. */
export async function runChain(script: SessionScript, windowTokens: number, policy: Policy): Promise<SessionRun> {
  const started = Date.now();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-cost-'));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  const model = script.start(ws);
  const server = await startTestServer({ responder: responder(script, model), contextWindow: windowTokens });
  try {
    const settingsArgs: string[] = [];
    if (policy.settings) {
      fs.writeFileSync(path.join(root, 'settings.json'), JSON.stringify(policy.settings));
      settingsArgs.push('--settings', path.join(root, 'settings.json'));
    }
    const cli = path.resolve(__dirname, '../../dist/cli.js');
    const env = {
      ...process.env,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'bench-key',
      ENGRAM_DATA_DIR: path.join(root, 'data'),
    };
    let sessionId: string | undefined;
    let transcript = '';
    const turnStarts: number[] = [];
    const compactions: Record<string, number> = {};
    let turnsOk = 0;
    for (let t = 1; t <= script.turns; t++) {
      const args = [
        cli,
        '-p',
        script.prompt(t),
        '--cwd',
        ws,
        '--allowed-tools',
        script.allowedTools,
        '--output-format',
        'json',
        '--context-window',
        String(windowTokens),
        '--verbose',
        ...settingsArgs,
        ...(sessionId ? ['--resume', sessionId] : []),
      ];
      turnStarts.push(Date.now());
      // Asynchronously: the test server answering the CLI lives in this process.
      const r = await promisify(execFile)(process.execPath, args, {
        env,
        encoding: 'utf8',
        maxBuffer: 16 * 2 ** 20,
      }).catch((e: { code?: number; stderr?: string }) => {
        throw new Error(
          `${script.name} turn ${t} at ${windowTokens} (${policy.name}) failed (exit ${e.code}): ${String(e.stderr).slice(0, 500)}`,
        );
      });
      const out = JSON.parse(r.stdout) as { sessionId: string; result: string; transcript: string };
      sessionId = out.sessionId;
      transcript = out.transcript;
      if (out.result.trim() !== '') turnsOk++;
      for (const m of r.stderr.matchAll(/compacted \(([\w-]+)\)/g)) compactions[m[1]] = (compactions[m[1]] ?? 0) + 1;
    }
    const facts = readTranscript(transcript);
    return {
      script,
      policy,
      window: windowTokens,
      requests: server.requests.slice(),
      turnStarts,
      turnsOk,
      compactions,
      ...facts,
      ms: Date.now() - started,
    };
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

interface TranscriptLine {
  type?: string;
  subtype?: string;
  isSidechain?: boolean;
  message?: { content?: unknown };
}

type Block = {
  type?: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  text?: string;
};

/**
 * What the main conversation's transcript says: the tool calls with their full outputs, and the turns
 * with a compaction record between the prompt and the first answer.
 */
function readTranscript(transcriptFile: string): { compactedAtStart: Set<number>; calls: ToolCallFacts[] } {
  const compactedAtStart = new Set<number>();
  const calls = new Map<string, ToolCallFacts>();
  let turn = 0;
  let answered = true;
  for (const text of fs.readFileSync(transcriptFile, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as TranscriptLine;
    if (line.isSidechain) continue;
    const content = line.message?.content;
    const blocks: Block[] = Array.isArray(content) ? (content as Block[]) : [];
    if (line.type === 'user') {
      const first = typeof content === 'string' ? content : blocks[0]?.type === 'text' ? (blocks[0].text ?? '') : '';
      const t = /^Turn (\d+):/.exec(first);
      if (t) {
        turn = Number(t[1]);
        answered = false;
      }
      for (const b of blocks) {
        const call = b.type === 'tool_result' ? calls.get(b.tool_use_id ?? '') : undefined;
        if (call) Object.assign(call, { result: outputText(b.content), isError: b.is_error === true });
      }
    } else if (line.type === 'assistant') {
      answered = true;
      for (const b of blocks) {
        if (b.type === 'tool_use' && b.id && !calls.has(b.id))
          calls.set(b.id, { id: b.id, name: b.name ?? '', turn, result: '', isError: false });
      }
    } else if (line.type === 'system' && /compact_boundary$/.test(line.subtype ?? '') && !answered) {
      compactedAtStart.add(turn);
    }
  }
  return { compactedAtStart, calls: [...calls.values()] };
}

function outputText(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? (content as Block[]).map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('')
    : '';
}
