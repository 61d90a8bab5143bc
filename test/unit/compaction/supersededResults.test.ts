// Issue #19, ask 1: a trim cuts what a later result superseded first and keeps each file's newest copy
// (and every copy a note stands for) whole; it cuts those too only when the gentler tiers do not save
// enough. And ask 2: session-memory compaction brings lagging notes up to date before it uses them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { microcompact } from '../../../src/core/compaction/microcompact';
import type { NotesSnapshot, NotesSource } from '../../../src/core/compaction/notesSource';
import { microStep } from '../../../src/core/compaction/pipeline';
import { resolveCompactionSettings } from '../../../src/core/compaction/settings';
import { sessionMemoryCompact } from '../../../src/core/compaction/sessionMemoryCompact';
import { trimPlan } from '../../../src/core/compaction/supersededResults';
import type { CompactionEntry } from '../../../src/core/compaction/types';
import { changeNote, repeatNote } from '../../../src/core/conversation/repeatedResults';
import type { ApiMessage } from '../../../src/core/conversation/types';

const big = (tag: string): string => `${tag} `.repeat(1_500);

/** One call and its result per step: [id, tool, input, output]. */
function conversation(steps: Array<[string, string, Record<string, unknown>, string]>): ApiMessage[] {
  return steps.flatMap(([id, name, input, output]): ApiMessage[] => [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
  ]);
}

const note = (of: string): string => repeatNote(of, { name: 'Read', summary: 'Read a.py' }, 3_000);

const steps: Array<[string, string, Record<string, unknown>, string]> = [
  ['r1', 'Read', { file_path: '/p/a.py' }, big('a1')],
  ['r2', 'Read', { file_path: '/p/b.py' }, big('b1')],
  ['g1', 'Grep', { pattern: 'x' }, big('grep')],
  ['e1', 'Edit', { file_path: '/p/b.py', old_string: 'x', new_string: 'y' }, 'The file /p/b.py has been updated.'],
  ['r3', 'Read', { file_path: '/p/c.py' }, big('c1')],
  ['r4', 'Read', { file_path: '/p/c.py' }, big('c2')],
  ['r5', 'Read', { file_path: '/p/a.py' }, note('r1')],
  ['x1', 'Bash', { command: 'ls' }, big('ls')],
  ['x2', 'Bash', { command: 'ls -l' }, big('ls -l')],
];

describe('which results a trim cuts first', () => {
  it('marks copies read again or edited since as superseded, and keeps newest copies and noted copies whole', () => {
    const plan = trimPlan(conversation(steps));
    assert.deepEqual([...plan.trimFirst].sort(), ['r2', 'r3']);
    assert.deepEqual([...plan.keepWhole].sort(), ['r1', 'r4']);
    assert.deepEqual([...plan.noteOrigins], ['r1']);
  });

  it('a noted copy whose file changed since is stale like any other', () => {
    const plan = trimPlan(
      conversation([...steps, ['e2', 'Write', { file_path: '/p/a.py', content: 'new' }, 'File created.']]),
    );
    assert.ok(plan.trimFirst.has('r1') && !plan.keepWhole.has('r1') && !plan.noteOrigins.has('r1'));
  });

  it('a change note keeps the copy it names whole and current, though an edit came between', () => {
    const change = changeNote(
      'r1',
      { name: 'Read', summary: 'Read a.py' },
      '     1\ta\n     2\tb',
      '     1\ta\n     2\tc',
    );
    assert.ok(change);
    const plan = trimPlan(
      conversation([
        ['r1', 'Read', { file_path: '/p/a.py' }, big('a1')],
        [
          'e1',
          'Edit',
          { file_path: '/p/a.py', old_string: 'b', new_string: 'c' },
          'The file /p/a.py has been updated.',
        ],
        ['r2', 'Read', { file_path: '/p/a.py' }, change],
      ]),
    );
    assert.ok(plan.keepWhole.has('r1') && plan.noteOrigins.has('r1') && !plan.trimFirst.has('r1'));
  });

  it('microcompact cuts superseded copies even among the newest, and never the ones kept whole', () => {
    const messages = conversation(steps);
    const plan = trimPlan(messages);
    const m = microcompact(messages, { keepRecent: 2, maxChars: 200, ...plan });
    assert.deepEqual(m.trimmedToolUseIds.sort(), ['g1', 'r2', 'r3']);
  });

  it('microStep takes the gentlest tier that is enough, else goes further', () => {
    const messages = conversation(steps);
    const entries: CompactionEntry[] = messages.map((message, i) => ({ message, uuids: [`u${i}`], messageIds: [] }));
    const tokensOf = (m: ApiMessage): number => Math.ceil(JSON.stringify(m.content).length / 4);
    const settings = resolveCompactionSettings({ keepRecentToolResults: 2, toolResultChars: 200 });
    const ctx = { settings, tokensOf, automatic: false };
    const gentle = microStep(entries, 20_000, ctx);
    assert.deepEqual(gentle?.trimmedToolUseIds?.slice().sort(), ['g1', 'r2', 'r3']);
    const gentleAfter = gentle?.tokensAfter ?? 0;
    const further = microStep(entries, 20_000, ctx, (r) => r.tokensAfter < gentleAfter);
    assert.deepEqual(further?.trimmedToolUseIds?.slice().sort(), ['g1', 'r2', 'r3', 'r4']);
    const all = microStep(entries, 20_000, ctx, () => false);
    assert.deepEqual(
      all?.trimmedToolUseIds?.slice().sort(),
      ['g1', 'r1', 'r2', 'r3', 'r4'],
      'the last tier when none is enough',
    );
    const today = microStep(entries, 20_000, { ...ctx, settings: { ...settings, trimSupersededFirst: false } });
    assert.deepEqual(
      today?.trimmedToolUseIds?.slice().sort(),
      ['g1', 'r1', 'r2', 'r3', 'r4'],
      'by age only, as before',
    );
  });
});

describe('session-memory compaction with lagging notes', () => {
  const messages: ApiMessage[] = [];
  for (let i = 0; i < 12; i++) {
    messages.push({ role: 'user', content: `question ${i} ${'words '.repeat(200)}` });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] });
  }
  const entries: CompactionEntry[] = messages.map((message, i) => ({
    message,
    uuids: [`u${i}`],
    messageIds: message.role === 'assistant' ? [`msg_${i}`] : [],
  }));
  const tokensOf = (m: ApiMessage): number => Math.ceil(JSON.stringify(m.content).length / 4);
  const text = '# Session Title\n_A title_\nQuestions\n\n# Current State\n_Now?_\nAnswering questions.';

  function source(cursor: string): NotesSource & { catchUps: Array<{ messageId: string }> } {
    let snapshot: NotesSnapshot = { text, lastSummarizedMessageId: cursor };
    const catchUps: Array<{ messageId: string }> = [];
    return {
      catchUps,
      read: async () => snapshot,
      waitForUpdate: async () => undefined,
      isEmpty: () => false,
      catchUp: async (cover) => {
        catchUps.push(cover);
        snapshot = { text: `${text}\nCaught up.`, lastSummarizedMessageId: cover.messageId };
      },
    };
  }
  const opts = {
    entries,
    bounds: { minTokens: 600, minTextMessages: 1, maxTokens: 4_000 },
    thresholdTokens: 1e9,
    tokensOf,
  };

  it('brings them up to date first when they miss more than the recent window, then keeps only that window', async () => {
    const s = source('msg_5');
    const r = await sessionMemoryCompact(s, 0, { ...opts, catchUp: true });
    assert.deepEqual(
      s.catchUps.map((c) => c.messageId),
      ['msg_23'],
    );
    assert.ok(r.ok && r.result.summaryText?.includes('Caught up.'));
    assert.ok(r.ok && r.result.keptFrom >= 20, `kept from ${r.ok ? r.result.keptFrom : '-'}`);
  });

  it('leaves notes that are close enough alone, and never catches up in the reactive stage', async () => {
    const recent = source('msg_21');
    await sessionMemoryCompact(recent, 0, { ...opts, catchUp: true });
    assert.equal(recent.catchUps.length, 0);
    const reactive = source('msg_5');
    const r = await sessionMemoryCompact(reactive, 0, opts);
    assert.equal(reactive.catchUps.length, 0);
    assert.ok(r.ok && r.result.keptFrom <= 12, 'everything the notes miss is kept');
  });
});
