// A long coding session written to disk as a transcript, for the tests and the bench that resume it in the
// Chat view: prompts, replies with Markdown and code, Read/Grep/Edit/Bash calls with their results (some of
// them long), in the shape a real session has. Every turn carries a unique word, so a test can find one.
import fs from 'node:fs';
import path from 'node:path';
import { projectDir } from '../../src/core/conversation/projectKey';

/** What a test needs to know about the session it wrote. */
export interface LongSession {
  sessionId: string;
  /** How many API messages the transcript holds. */
  messages: number;
  /** The unique word of turn `n` (0-based): in its prompt. */
  word(n: number): string;
  /** How many turns there are. */
  turns: number;
  /** The text the last reply starts with. */
  lastReply: string;
}

const FILES = ['src/server/router.ts', 'src/db/pool.ts', 'src/api/users.ts', 'test/users.test.ts', 'README.md'];
const MESSAGES_PER_TURN = 6;

/** Writes a session of about `messages` API messages for the workspace `cwd` under `dataDir`. */
export function writeLongSession(dataDir: string, cwd: string, messages = 2_000): LongSession {
  const sessionId = `long-${messages}-${Date.now().toString(36)}`;
  const turns = Math.ceil(messages / MESSAGES_PER_TURN);
  const base = { sessionId, cwd, isSidechain: false, userType: 'external', version: '2.1.88', gitBranch: 'main' };
  let at = Date.now() - turns * 120_000;
  let parent: string | null = null;
  let count = 0;
  const out: string[] = [];
  const push = (type: 'user' | 'assistant', message: Record<string, unknown>) => {
    const uuid = `${sessionId}-${count++}`;
    out.push(
      `${JSON.stringify({ ...base, type, uuid, parentUuid: parent, timestamp: new Date((at += 3_000)).toISOString(), message })}\n`,
    );
    parent = uuid;
  };
  const assistant = (content: unknown[]) =>
    push('assistant', {
      id: `msg_${count}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: content.some((b) => (b as { type: string }).type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 300, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 400 },
    });
  const result = (id: string, content: string) =>
    push('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] });
  let lastReply = '';
  for (let n = 0; n < turns && count < messages; n++) {
    const file = FILES[n % FILES.length];
    push('user', { role: 'user', content: prompt(n, file) });
    assistant([
      { type: 'text', text: `I'll look at \`${file}\` first to see how it handles this.` },
      { type: 'tool_use', id: `toolu_r${n}`, name: 'Read', input: { file_path: `${cwd}/${file}` } },
    ]);
    result(`toolu_r${n}`, fileText(n, file));
    assistant([
      { type: 'text', text: 'The handler swallows the error. Let me check the callers before changing it.' },
      n % 3 === 0
        ? { type: 'tool_use', id: `toolu_b${n}`, name: 'Bash', input: { command: 'npm test -- --grep users' } }
        : { type: 'tool_use', id: `toolu_b${n}`, name: 'Grep', input: { pattern: `handle${n}`, path: 'src' } },
    ]);
    result(`toolu_b${n}`, n % 3 === 0 ? testOutput(n) : grepOutput(n));
    lastReply = `Turn ${n} done: the handler now passes the error on.`;
    assistant([{ type: 'text', text: reply(n, file, lastReply) }]);
  }
  const dir = projectDir(dataDir, cwd);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), out.join(''));
  return { sessionId, messages: count, turns, word: (n) => `marker${n}q`, lastReply };
}

function prompt(n: number, file: string): string {
  const asks = [
    `The users endpoint returns 500 when the database is down (marker${n}q). Can you make it return 503 with a clear message? Look at ${file}.`,
    `Tests in ${file} are flaky (marker${n}q): the pool is not closed between runs. Fix it without slowing the suite.`,
    `Rename handle${n} to something that says what it does (marker${n}q), and update the callers.`,
  ];
  return asks[n % asks.length];
}

function fileText(n: number, file: string): string {
  const lines: string[] = [];
  const long = n % 4 === 0 ? 180 : 40;
  for (let i = 1; i <= long; i++) {
    const code =
      i % 7 === 0
        ? `  } catch (error) {`
        : i % 5 === 0
          ? `  const rows = await pool.query('SELECT * FROM users WHERE id = $1', [id${i}]);`
          : `  log.debug('step ${i} of handle${n}', { file: '${file}' });`;
    lines.push(`${String(i).padStart(5)}\t${code}`);
  }
  return lines.join('\n');
}

function testOutput(n: number): string {
  const lines = ['> app@1.0.0 test', '> vitest run --grep users', ''];
  for (let i = 0; i < 30; i++) lines.push(` ✓ users ${n}.${i} returns the user by id (${(i * 7) % 40} ms)`);
  lines.push('', ` Test Files  4 passed (4)`, `      Tests  30 passed (30)`, `   Duration  2.${n % 10}1s`);
  return lines.join('\n');
}

function grepOutput(n: number): string {
  return FILES.map((f, i) => `${f}:${10 + i * 13}:  return handle${n}(request, response);`).join('\n');
}

function reply(n: number, file: string, first: string): string {
  return [
    first,
    '',
    `## What changed in \`${file}\``,
    '',
    `- The **catch** block no longer returns \`500\`: it maps \`ECONNREFUSED\` to a \`503\`.`,
    `- A message the user can act on: *"The database is not reachable; try again in a minute."*`,
    `- The pool is closed in \`afterAll\`, so the runs of turn ${n} do not leak connections.`,
    '',
    '```ts',
    `export async function handle${n}(request: Request, response: Response): Promise<void> {`,
    '  try {',
    '    response.json(await users.find(request.params.id));',
    '  } catch (error) {',
    "    if (isConnectionError(error)) return void response.status(503).json({ error: 'database unavailable' });",
    '    throw error;',
    '  }',
    '}',
    '```',
    '',
    n % 5 === 0
      ? 'Run `npm test` again to check; the flaky test passed 20 times in a row here. If it still fails, the fixture database may need a restart.'
      : 'The tests pass.',
  ].join('\n');
}
