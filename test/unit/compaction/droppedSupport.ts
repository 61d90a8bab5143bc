// Shared by the dropped-facts tests: an oracle written apart from droppedFacts.ts (it walks every string
// of the new conversation instead of choosing blocks), generated conversations with paths, commands,
// errors and typed text, and the summarizer that mentions a chosen part of them.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ApiMessage, AssistantBlock, UserBlock } from '../../../src/core/conversation/types';
import type { CompactionResult } from '../../../src/core/compaction/types';
import type { SummarizerConfig } from '../../../src/core/compaction/fullCompact';
import { ScriptedClient } from './compactionSupport';

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
const NOT_TEXT = new Set(['type', 'id', 'tool_use_id', 'name', 'signature', 'media_type', 'data']);

function strings(v: unknown, out: string[], key = ''): void {
  if (typeof v === 'string') {
    if (!NOT_TEXT.has(key)) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) strings(x, out, key);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, out, k);
}

/** The facts the issue names, found the plain way: tool inputs by key, typed text by message. */
function oracleFacts(messages: readonly ApiMessage[]): { paths: string[]; commands: string[]; user: string[] } {
  const paths: string[] = [];
  const commands: string[] = [];
  const user: string[] = [];
  for (const m of messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const hasResult = blocks.some((b) => b.type === 'tool_result');
    for (const b of blocks) {
      if (b.type === 'tool_use') {
        for (const k of ['file_path', 'path', 'notebook_path'])
          if (typeof b.input[k] === 'string') paths.push(squash(b.input[k] as string));
        if (b.name === 'Bash' && typeof b.input.command === 'string') commands.push(squash(b.input.command));
      }
      if (m.role === 'user' && !hasResult && b.type === 'text') {
        const t = squash(b.text);
        if (t !== '' && !t.startsWith('<') && !t.startsWith('This session') && !t.startsWith('[')) user.push(t);
      }
    }
  }
  return { paths, commands, user };
}

/**
 * The property: each path, command and typed message of the replaced messages is in the new
 * conversation's text or in `dropped`, never both (a path also counts as present by its dir/base).
 * Returns how many facts were checked.
 */
export function checkDropped(result: CompactionResult, label: string): number {
  const dropped = result.dropped;
  assert.ok(dropped, `${label}: the result says what it dropped`);
  const all: string[] = [];
  strings(
    result.entries.map((e) => e.message.content),
    all,
  );
  const text = squash(all.join('\n'));
  const facts = oracleFacts(result.replaced.map((e) => e.message));
  const pathPresent = (p: string): boolean => {
    if (present(p)) return true;
    const seg = p.split('/').filter(Boolean);
    return seg.length >= 3 && new RegExp(`(^|[^\\w.-])${escapeRegex(seg.slice(-2).join('/'))}($|[^\\w/-])`).test(text);
  };
  // Present as a whole: not inside a longer word where the fact starts or ends with a letter or digit.
  const present = (f: string): boolean => {
    const edge = (c: string | undefined) => (c && /[\p{L}\p{N}_]/u.test(c) ? '(?<![\\p{L}\\p{N}_])' : '');
    const tail = (c: string | undefined) => (c && /[\p{L}\p{N}_]/u.test(c) ? '(?![\\p{L}\\p{N}_])' : '');
    return new RegExp(`${edge(f[0])}${escapeRegex(f)}${tail(f.at(-1))}`, 'u').test(text);
  };
  let n = 0;
  for (const p of facts.paths) {
    n++;
    assert.equal(dropped.paths.includes(p), !pathPresent(p), `${label}: path ${p}`);
  }
  for (const c of facts.commands) {
    n++;
    assert.equal(dropped.commands.includes(c), !present(c), `${label}: command ${c}`);
  }
  // A typed message is one fact; its blocks were checked one by one above, so check the message's text.
  const typed = new Set(dropped.userMessages);
  for (const u of facts.user) {
    n++;
    const inDropped = [...typed].some((d) => d.includes(u));
    assert.ok(inDropped || present(u), `${label}: your message "${u.slice(0, 40)}" is carried or listed`);
  }
  for (const d of dropped.userMessages) assert.ok(!present(d), `${label}: "${d.slice(0, 40)}" is carried`);
  for (const d of dropped.errors) assert.ok(!present(d), `${label}: error "${d}" is carried`);
  return n;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Generated conversations: each round a typed prompt, then tool calls on files and commands (some
// failing), then an answer.
const FILES = [
  '/proj/src/app.ts',
  '/proj/src/util/text.ts',
  '/proj/README.md',
  'notes/todo.md',
  '/proj/test/a.test.ts',
];
const COMMANDS = ['npm test', 'git status', 'ls -la  src', 'grep -rn "TODO" src\n| head', 'node scripts/x.mjs'];
const WORDS = ['fix', 'the', 'parser', 'please', 'rename', 'it', 'and', 'run', 'tests', 'again', '修复', 'x'];

export interface RoundGen {
  prompt: string[];
  calls: Array<{ read: boolean; which: number; error: boolean }>;
}

export const roundsArb: fc.Arbitrary<RoundGen[]> = fc.array(
  fc.record({
    prompt: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }),
    calls: fc.array(fc.record({ read: fc.boolean(), which: fc.nat({ max: 4 }), error: fc.boolean() }), {
      maxLength: 3,
    }),
  }),
  { minLength: 2, maxLength: 8 },
);

export function conversationOf(rounds: readonly RoundGen[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  let id = 0;
  rounds.forEach((r, i) => {
    out.push({ role: 'user', content: `${r.prompt.join(i % 2 ? '\n ' : ' ')} (${i})` });
    if (r.calls.length > 0) {
      const uses: AssistantBlock[] = r.calls.map((c) => ({
        type: 'tool_use',
        id: `toolu_${++id}`,
        name: c.read ? 'Read' : 'Bash',
        input: c.read ? { file_path: FILES[c.which] } : { command: COMMANDS[c.which], description: 'run' },
      }));
      out.push({ role: 'assistant', content: uses });
      const results: UserBlock[] = uses.map((u, k) => ({
        type: 'tool_result',
        tool_use_id: (u as { id: string }).id,
        content: r.calls[k].error ? `<tool_use_error>Error: failed step ${i}.${k}\ndetail</tool_use_error>` : 'ok',
        ...(r.calls[k].error ? { is_error: true } : {}),
      }));
      out.push({ role: 'user', content: results });
    }
    out.push({ role: 'assistant', content: [{ type: 'text', text: `done ${i}` }] });
  });
  return out;
}

/** Text naming some of the generated facts (picked by the mask's bits), to stand in for notes or a summary. */
export function mentioning(mask: number): string {
  const facts = [...FILES, ...COMMANDS, 'src/app.ts', 'Error: failed step 0.0'];
  return facts.filter((_, i) => (mask >> i) & 1).join('\n');
}

export function summarizer(answer: string): SummarizerConfig {
  return {
    client: new ScriptedClient([answer]),
    model: 'claude-test',
    maxTokens: 1_000,
    system: [{ type: 'text', text: 'sys' }],
    tools: [],
  };
}
