// session_cost_units (DESIGN 8): a scripted 40-turn coding session (reads, greps, bash; about 240K tokens
// of tool output in all) run through `engram -p --resume`, one process per turn as a script would, against
// the test server with its simulated prompt cache. Units = input + 1.25 x cache write (5 min) + 2 x cache
// write (1 h) + 0.1 x cache read + 5 x output, summed over every request (forks included).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiMessage } from '../../src/core/conversation/types';
import { startTestServer, type MessagesRequestBody, type ScriptedReply } from '../../src/server/anthropicTestServer';
import type { Metrics } from './run';

const TURNS = 40;
const NOTES_MARKER = '<engram-session-notes-update>';
const SUMMARY_MARKER = '<engram-compact-summary>';

function lastMessage(body: MessagesRequestBody): ApiMessage {
  return body.messages[body.messages.length - 1];
}

function isToolResult(m: ApiMessage): boolean {
  return Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result');
}

/** The tool call of turn t: about 6K tokens of output each. */
function toolCall(t: number): ScriptedReply {
  const file = `src/module${t}.js`;
  const calls = [
    { name: 'Read', input: { file_path: file } },
    { name: 'Grep', input: { pattern: `value_${t}_`, path: file, output_mode: 'content' } },
    { name: 'Bash', input: { command: `cat ${file}` } },
    { name: 'Read', input: { file_path: file, offset: 1, limit: 400 } },
  ];
  return { content: [{ type: 'text', text: `Looking at ${file}.` }, { type: 'tool_use', ...calls[t % calls.length] }] };
}

function respond(body: MessagesRequestBody): ScriptedReply {
  const all = JSON.stringify(body.messages);
  const last = lastMessage(body);
  if (all.includes(NOTES_MARKER)) {
    if (isToolResult(last)) return { content: [{ type: 'text', text: 'Notes updated.' }] };
    const notesPath = /\/[^\s`'"\\]*session-memory\/summary\.md/.exec(all)?.[0] ?? '';
    const guide = '_What is in progress right now, what is still open, and the very next step_\n';
    const turn = (all.match(/Turn \d+/g) ?? ['Turn 0']).pop();
    return { content: [{ type: 'tool_use', name: 'Edit', input: { file_path: notesPath, old_string: guide, new_string: `${guide}Reviewing modules; reached ${turn}.\n` } }] };
  }
  if (all.includes(SUMMARY_MARKER)) {
    return { content: [{ type: 'text', text: '<summary>1. Request: review every module.\n2. Current work: reviewing modules one by one.</summary>' }] };
  }
  if (isToolResult(last)) return { content: [{ type: 'text', text: 'Reviewed; it looks consistent.' }] };
  const turn = Number(/Turn (\d+)/.exec(typeof last.content === 'string' ? last.content : JSON.stringify(last.content))?.[1] ?? 0);
  return toolCall(turn);
}

export async function run(): Promise<Metrics> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-cost-'));
  const server = await startTestServer({ responder: respond });
  try {
    const ws = path.join(root, 'ws');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    for (let t = 1; t <= TURNS; t++) {
      const lines = Array.from({ length: 300 }, (_, i) => `export const value_${t}_${i} = compute(${i}, 'module ${t} line ${i} of the generated code');`);
      fs.writeFileSync(path.join(ws, 'src', `module${t}.js`), `${lines.join('\n')}\n`);
    }
    const cli = path.resolve(__dirname, '../../dist/cli.js');
    const env = { ...process.env, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'bench-key', ENGRAM_DATA_DIR: path.join(root, 'data') };
    let sessionId: string | undefined;
    for (let t = 1; t <= TURNS; t++) {
      const args = [cli, '-p', `Turn ${t}: review src/module${t}.js`, '--cwd', ws, '--allowed-tools', 'Read,Grep,Glob,Bash', '--output-format', 'json',
        ...(sessionId ? ['--resume', sessionId] : [])];
      // Asynchronously: the test server answering the CLI lives in this process.
      const r = await promisify(execFile)(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 16 * 2 ** 20 })
        .catch((e: { code?: number; stderr?: string }) => { throw new Error(`turn ${t} failed (exit ${e.code}): ${String(e.stderr).slice(0, 500)}`); });
      sessionId = (JSON.parse(r.stdout) as { sessionId: string }).sessionId;
    }
    // Where the units go: by kind of request and by kind of token, so a regression can be traced.
    const parts = { main: 0, notes: 0, summary: 0, input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };
    let toolOutputChars = 0;
    for (const req of server.requests) {
      const u = req.usage;
      if (!u) continue;
      const cw5 = u.cache_creation?.ephemeral_5m_input_tokens ?? u.cache_creation_input_tokens ?? 0;
      const cw1h = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
      const kinds = { input: u.input_tokens, cacheWrite: 1.25 * cw5 + 2 * cw1h, cacheRead: 0.1 * (u.cache_read_input_tokens ?? 0), output: 5 * u.output_tokens };
      const cost = kinds.input + kinds.cacheWrite + kinds.cacheRead + kinds.output;
      for (const [k, v] of Object.entries(kinds)) parts[k as keyof typeof kinds] += v;
      const all = JSON.stringify(req.body.messages);
      parts[all.includes(NOTES_MARKER) ? 'notes' : all.includes(SUMMARY_MARKER) ? 'summary' : 'main'] += cost;
    }
    const units = parts.main + parts.notes + parts.summary;
    for (let t = 1; t <= TURNS; t++) toolOutputChars += fs.statSync(path.join(ws, 'src', `module${t}.js`)).size;
    const rejected = server.requests.filter((r) => r.status !== 200).length;
    return {
      session_cost_units: { value: Math.round(units), unit: 'units', target: 560_000 },
      session_cost_requests: { value: server.requests.length, unit: 'requests' },
      ...Object.fromEntries(Object.entries(parts).map(([k, v]) => [`session_cost_units_${k}`, { value: Math.round(v), unit: 'units' }])),
      session_cost_rejected_requests: { value: rejected, unit: 'requests', target: 0 },
      session_cost_tool_output_tokens: { value: Math.round(toolOutputChars / 4), unit: 'tokens (approx.)' },
    };
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
