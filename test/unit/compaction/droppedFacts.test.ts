// What a compaction dropped: the extraction on hand-made conversations, then the property (every path,
// command and typed message of the replaced messages is either carried or listed as dropped) on
// generated conversations and on Claude Code's real transcripts, for each stage and varied keep bounds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadConversation } from '../../../src/core/conversation/conversationLoader';
import type { ApiMessage } from '../../../src/core/conversation/types';
import {
  containsWhole,
  droppedFacts,
  factsOf,
  notCarried,
  pathCarried,
  replacementText,
} from '../../../src/core/compaction/droppedFacts';
import { fullCompact } from '../../../src/core/compaction/fullCompact';
import { microStep } from '../../../src/core/compaction/pipeline';
import { reactiveCompact } from '../../../src/core/compaction/reactive';
import { looksTemplateOnly } from '../../../src/core/compaction/notesSource';
import { DEFAULT_COMPACTION_SETTINGS } from '../../../src/core/compaction/settings';
import { compactWithNotes } from '../../../src/core/compaction/sessionMemoryCompact';
import { withEditedBody } from '../../../src/core/compaction/summaryEdit';
import { PromptTooLongError } from '../../../src/core/llm/errors';
import { entriesOf, type CompactionEntry } from '../../../src/core/compaction/types';
import { CC_FIXTURES, fixtureTranscripts } from '../conversation/testSupport';
import { charTokens } from './compactionSupport';
import { checkDropped, conversationOf, mentioning, roundsArb, summarizer } from './droppedSupport';

const user = (content: ApiMessage['content']): ApiMessage => ({ role: 'user', content });
const assistant = (content: ApiMessage['content']): ApiMessage => ({ role: 'assistant', content });

const SESSION: ApiMessage[] = [
  user('Please fix the   login\nbug'),
  assistant([
    { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/home/me/proj/src/login.ts' } },
    { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'npm   test', description: 'tests' } },
    { type: 'tool_use', id: 't3', name: 'Grep', input: { pattern: 'x', path: 'src' } },
  ]),
  user([
    { type: 'tool_result', tool_use_id: 't1', content: 'code' },
    {
      type: 'tool_result',
      tool_use_id: 't2',
      is_error: true,
      content: '<tool_use_error>\nError: 3 tests failed\n  at login.test.ts:4</tool_use_error>',
    },
    { type: 'tool_result', tool_use_id: 't3', content: 'src/a.ts' },
  ]),
  user([
    { type: 'text', text: '<system-reminder>the date changed</system-reminder>' },
    { type: 'text', text: 'also <system-reminder>x</system-reminder>keep the old API' },
  ]),
  user('<command-name>/compact</command-name>'),
  user('This session continues a conversation that grew too long...'),
];

describe('the facts of messages', () => {
  it('finds paths, commands, error lines and typed messages, normalised and deduplicated', () => {
    const facts = factsOf([...SESSION, ...SESSION]);
    assert.deepEqual(facts, {
      paths: ['/home/me/proj/src/login.ts', 'src'],
      commands: ['npm test'],
      errors: ['Error: 3 tests failed'],
      userMessages: ['Please fix the login bug', 'also keep the old API'],
    });
  });

  it('a message kept whole carries everything; a summary carries what it names', () => {
    assert.deepEqual(droppedFacts(SESSION, SESSION), { paths: [], commands: [], errors: [], userMessages: [] });
    const summary = [user('Fixed src/login.ts after `npm test` failed. The user said: Please fix the login bug')];
    assert.deepEqual(droppedFacts(SESSION, summary), {
      paths: [],
      commands: [],
      errors: ['Error: 3 tests failed'],
      userMessages: ['also keep the old API'],
    });
  });

  it('counts a path as carried whole or by its directory and name on a segment boundary', () => {
    const p = '/home/me/proj/src/login.ts';
    assert.ok(pathCarried(p, replacementText([user('edited src/login.ts.')])));
    assert.ok(pathCarried(p, replacementText([user('see proj/src/login.ts')])));
    assert.ok(!pathCarried(p, replacementText([user('edited mysrc/login.ts')])));
    assert.ok(!pathCarried(p, replacementText([user('edited src/login.tsx')])));
    assert.ok(!pathCarried(p, replacementText([user('edited login.ts')])));
    assert.ok(pathCarried('README.md', replacementText([user('read README.md')])));
  });

  it('a trim that cuts an error result drops that error', () => {
    const long = `Error: build broke\n${'x'.repeat(5_000)}`;
    const entries = entriesOf([
      user('go'),
      assistant([{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'make' } }]),
      user([{ type: 'tool_result', tool_use_id: 'a', is_error: true, content: long }]),
      ...Array.from({ length: 6 }, (_, i) => [
        assistant([{ type: 'tool_use', id: `b${i}`, name: 'Bash', input: { command: `step ${i}` } }]),
        user([{ type: 'tool_result', tool_use_id: `b${i}`, content: 'y'.repeat(5_000) }]),
      ]).flat(),
    ]);
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, toolResultChars: 10, keepRecentToolResults: 1 };
    const r = microStep(entries, 100_000, { settings, tokensOf: charTokens, automatic: false });
    assert.ok(r);
    assert.ok(r.dropped);
    assert.deepEqual(r.dropped.commands, []);
    assert.deepEqual(r.dropped.errors, ['Error: build broke']);
  });

  it('an edited summary is checked again: a fact written into it leaves the list', () => {
    const entries = entriesOf(
      conversationOf([
        { prompt: ['fix', 'it'], calls: [{ read: true, which: 0, error: false }] },
        { prompt: ['run'], calls: [] },
      ]),
    );
    const out = compactWithNotes({ text: '# Title\nnotes' }, looksTemplateOnly, {
      entries,
      bounds: { minTokens: 0, minTextMessages: 1, maxTokens: 10_000 },
      thresholdTokens: Number.POSITIVE_INFINITY,
      tokensOf: charTokens,
    });
    assert.ok(out.ok);
    assert.deepEqual(out.result.dropped?.paths, ['/proj/src/app.ts']);
    const edited = withEditedBody(out.result, entries, '# Title\nnotes\nRead src/app.ts', charTokens);
    assert.ok(edited.ok);
    assert.deepEqual(edited.result.dropped?.paths, []);
  });
});

const bounds = fc.record({
  minTokens: fc.integer({ min: 0, max: 400 }),
  minTextMessages: fc.integer({ min: 0, max: 4 }),
  maxTokens: fc.integer({ min: 200, max: 4_000 }),
});

describe('the word index that turns facts down without a scan', () => {
  it('decides as a scan of the whole text does, letters beside paths and combining marks included', () => {
    const char = fc.constantFrom('a', 'b', 'é', '\u0301', '1', '_', '/', '.', '-', ' ', 'x');
    const str = (max: number) => fc.array(char, { maxLength: max }).map((cs) => cs.join('').trim());
    fc.assert(
      fc.property(
        str(60),
        fc.array(str(12), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (text, made, cuts) => {
          // Facts drawn from the text itself (so some are carried) and made up.
          const taken = cuts.map((c, i) => text.slice(c % (text.length + 1), (c % (text.length + 1)) + 3 + i).trim());
          const facts = [...made, ...taken].filter((f) => f !== '');
          const d = notCarried({ paths: facts, commands: facts, errors: [], userMessages: facts }, text);
          assert.deepEqual(
            d.paths,
            facts.filter((f) => !pathCarried(f, text)),
          );
          assert.deepEqual(
            d.commands,
            facts.filter((f) => !containsWhole(text, f)),
          );
          assert.deepEqual(d.userMessages, d.commands);
        },
      ),
      { numRuns: 2_000 },
    );
    // A tail after a letter pathCarried allows there (not ASCII): "src" is no word of this text, yet carried.
    const text = 'edited résumésrc/app.ts today';
    assert.equal(pathCarried('/home/me/src/app.ts', text), true);
    assert.deepEqual(
      notCarried({ paths: ['/home/me/src/app.ts'], commands: [], errors: [], userMessages: [] }, text).paths,
      [],
    );
  });
});

describe('every fact is carried or listed as dropped', () => {
  it('on generated conversations, by the notes, a summary and a reactive cut', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(roundsArb, bounds, fc.nat({ max: 2 ** 12 - 1 }), async (rounds, keep, mask) => {
        const entries = entriesOf(conversationOf(rounds));
        for (const r of await allStages(entries, keep, mentioning(mask))) checked += checkDropped(r, 'generated');
      }),
      { numRuns: 300 },
    );
    assert.ok(checked > 1_000, `facts checked: ${checked}`);
  });

  it("on Claude Code's real transcripts, for each stage, with varied keep bounds", async () => {
    const names = await fixtureTranscripts();
    const notesFile = fs.readFileSync(path.join(CC_FIXTURES, 'sm-session-memory-summary.md'), 'utf8');
    let checked = 0;
    let stages = 0;
    for (const name of names) {
      const { entries } = await loadConversation(path.join(CC_FIXTURES, name));
      await fc.assert(
        fc.asyncProperty(bounds, fc.nat({ max: 2 ** 12 - 1 }), async (keep, mask) => {
          for (const notes of [notesFile, `# Notes\n${mentioning(mask)}\nls`]) {
            for (const r of await allStages(entries, keep, notes)) {
              checked += checkDropped(r, name);
              stages++;
            }
          }
        }),
        { numRuns: 40 },
      );
    }
    assert.ok(stages > 100 && checked > 100, `stages run: ${stages}, facts checked: ${checked}`);
  });
});

type Bounds = { minTokens: number; minTextMessages: number; maxTokens: number };

async function allStages(entries: CompactionEntry[], keep: Bounds, text: string) {
  const results = [];
  const sm = compactWithNotes({ text }, looksTemplateOnly, {
    entries,
    bounds: keep,
    thresholdTokens: Number.POSITIVE_INFINITY,
    tokensOf: charTokens,
  });
  if (sm.ok) results.push(sm.result);
  if (entries.length > 1) {
    const full = await fullCompact({
      entries,
      tokensOf: charTokens,
      micro: { keepRecent: 2, maxChars: 2_000 },
      keep,
      summarizer: summarizer(`<summary>\n1. Request and intent: ${text}\n9. Next step: none.\n</summary>`),
    });
    assert.ok(full.ok);
    results.push(full.result);
  }
  const reactive = await reactiveCompact({
    entries,
    error: new PromptTooLongError('prompt is too long', undefined, 60),
    attempt: 1,
    contextWindow: 60,
    tokensOf: charTokens,
    micro: { keepRecent: 1, maxChars: 50 },
  });
  if (reactive.ok) results.push(reactive.result);
  return results;
}

describe('replacementText on a long conversation', () => {
  it('normalises a text of several chunks exactly as one replace over the whole text would', () => {
    // Over a megabyte of parts, with whitespace runs at the ends of parts and parts of only whitespace,
    // so runs meet where the chunks are cut.
    const parts = ['  lead'];
    // The joined length kept as it grows (joining at each step made this test take minutes).
    for (let i = 0, length = parts[0].length; length < 3 * 1024 * 1024; i++) {
      const part = i % 7 === 0 ? ' \t\n ' : `${'x'.repeat(i % 50)} word${i}  \n\t tail${i}${i % 3 === 0 ? '   ' : ''}`;
      parts.push(part);
      length += 1 + part.length;
    }
    parts.push('end  ');
    const messages: ApiMessage[] = parts.map((text) => ({ role: 'assistant', content: [{ type: 'text', text }] }));
    const text = replacementText(messages);
    assert.equal(text, parts.join('\n').replace(/\s+/g, ' ').trim());
  });

  it('finds the same facts carried whatever order they come in (the search starts where the last was found)', () => {
    const text = 'ran npm test then read src/b.ts and src/a.ts; npm testing';
    const facts = {
      paths: ['/p/src/a.ts', '/p/src/b.ts', '/p/src/c.ts'],
      commands: ['npm test', 'npm'],
      errors: [],
      userMessages: ['testing', 'tested'],
    };
    const d = notCarried(facts, text);
    assert.deepEqual(d.paths, ['/p/src/c.ts']);
    assert.deepEqual(d.commands, []);
    assert.deepEqual(d.userMessages, ['tested']);
  });
});
