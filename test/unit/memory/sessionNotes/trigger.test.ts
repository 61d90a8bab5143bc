// The notes trigger as a table: every firing point of a response sequence, and why it stayed quiet
// elsewhere. Plus the template's parse, its "nothing written yet" check and the user override.
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  capViolations,
  DEFAULT_TEMPLATE,
  isOverCap,
  isTemplateOnly,
  loadTemplate,
  parseNotes,
} from '../../../../src/core/memory/sessionNotes/template';
import {
  DEFAULT_THRESHOLDS,
  INITIAL_TRIGGER_STATE,
  markStarted,
  observeResponse,
  resolveThresholds,
  type TriggerState,
  type TriggerThresholds,
} from '../../../../src/core/memory/sessionNotes/trigger';
import { CC_FIXTURES } from '../../conversation/testSupport';
import {
  NOTES_INIT_TOKENS,
  NOTES_UPDATE_GROWTH_TOKENS,
  NOTES_UPDATE_TOOL_CALLS,
} from '../../../../src/core/thresholds';
import { useTempDirs } from '../../support/tempDirs';

const SMALL: TriggerThresholds = { initTokens: 2_000, growthTokens: 1_000, toolCalls: 3 };

/**
 * [context tokens, tool calls, tool calls of the turn so far (default: the response's)] per response ->
 * one outcome per response ('init', 'update' or the quiet reason).
 */
function run(seq: Array<[number, number, number?]>, t: TriggerThresholds = SMALL, busyAt: number[] = []): string[] {
  let state: TriggerState = INITIAL_TRIGGER_STATE;
  return seq.map(([contextTokens, toolCalls, turnToolCalls], i) => {
    const { state: counted, decision } = observeResponse(
      state,
      { contextTokens, toolCalls, ...(turnToolCalls !== undefined ? { turnToolCalls } : {}) },
      t,
    );
    state = counted;
    if (!decision.fire) return decision.reason;
    if (busyAt.includes(i)) return `${decision.kind}(busy)`; // not marked: an update was running
    state = markStarted(contextTokens);
    return decision.kind;
  });
}

describe('session notes trigger', () => {
  const table: Array<{ name: string; seq: Array<[number, number, number?]>; busyAt?: number[]; expect: string[] }> = [
    {
      name: 'stays quiet below the init threshold, whatever the tool calls',
      seq: [
        [500, 0],
        [1_000, 5],
        [1_999, 0],
      ],
      expect: ['belowInit', 'belowInit', 'belowInit'],
    },
    {
      name: 'inits at the first response at or above the threshold, with or without tool calls',
      seq: [
        [1_500, 1],
        [2_000, 1],
        [2_500, 0],
      ],
      expect: ['belowInit', 'init', 'growth'],
    },
    {
      name: 'updates on a response without tool calls once grown enough (a natural pause)',
      seq: [
        [2_000, 0],
        [2_600, 0],
        [2_999, 0],
        [3_000, 0],
      ],
      expect: ['init', 'growth', 'growth', 'update'],
    },
    {
      // Due at the third call, it fires one response later, when that call's result is in.
      name: 'needs enough tool calls when the response calls a tool; counts them across responses',
      seq: [
        [2_000, 0],
        [3_100, 1],
        [3_200, 1],
        [3_300, 1],
        [3_400, 1],
        [3_500, 1],
      ],
      expect: ['init', 'toolCalls', 'toolCalls', 'resultsPending', 'update', 'growth'],
    },
    {
      // Turns of one tool call and an answer (reading a file, then replying): the answers are not pauses.
      name: 'an answer after tool calls in the same turn is not a pause: such turns wait for the tool-call count',
      seq: [
        [2_000, 0, 0],
        [3_100, 1, 1],
        [3_200, 0, 1],
        [3_300, 1, 1],
        [3_400, 0, 1],
        [3_500, 1, 1],
        [3_600, 0, 1],
      ],
      expect: ['init', 'toolCalls', 'toolCalls', 'toolCalls', 'toolCalls', 'resultsPending', 'update'],
    },
    {
      name: 'due at a response that called tools: waits one response for the results, then fires whatever that one does',
      seq: [
        [2_000, 0],
        [3_000, 3],
        [3_100, 2],
        [4_200, 1],
        [4_300, 0, 1],
      ],
      expect: ['init', 'resultsPending', 'update', 'toolCalls', 'toolCalls'],
    },
    {
      name: 'tool calls alone never make it due: growth is always required',
      seq: [
        [2_000, 0],
        [2_100, 3],
        [2_200, 5],
        [2_999, 0],
      ],
      expect: ['init', 'growth', 'growth', 'growth'],
    },
    {
      name: 'the tool calls of the firing response are covered by that update and not counted again',
      seq: [
        [2_000, 3],
        [3_000, 2],
        [3_100, 1],
        [3_200, 0],
      ],
      expect: ['init', 'toolCalls', 'resultsPending', 'update'],
    },
    {
      name: 'a decision that cannot run (update busy) is asked again on the next response, counts kept',
      seq: [
        [2_000, 0],
        [3_000, 0],
        [3_100, 1],
        [3_200, 0],
      ],
      busyAt: [1],
      expect: ['init', 'update(busy)', 'toolCalls', 'update'],
    },
    {
      name: 'after a compaction shrinks the context, growth counts from the smaller size',
      seq: [
        [2_000, 0],
        [30_000, 0],
        [8_000, 0],
        [8_900, 0],
        [9_000, 0],
      ],
      expect: ['init', 'update', 'growth', 'growth', 'update'],
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      assert.deepEqual(run(row.seq, SMALL, row.busyAt), row.expect);
    });
  }

  it('uses the DESIGN defaults (thresholds.ts) when settings give nothing usable', () => {
    assert.deepEqual(DEFAULT_THRESHOLDS, {
      initTokens: NOTES_INIT_TOKENS,
      growthTokens: NOTES_UPDATE_GROWTH_TOKENS,
      toolCalls: NOTES_UPDATE_TOOL_CALLS,
    });
    assert.deepEqual(resolveThresholds({ initTokens: 4_000, growthTokens: Number.NaN, toolCalls: -1 }), {
      ...DEFAULT_THRESHOLDS,
      initTokens: 4_000,
    });
    assert.deepEqual(
      run(
        [
          [9_999, 0],
          [10_000, 0],
          [14_999, 0],
          [15_000, 2],
          [15_500, 1],
          [15_600, 0],
          [15_700, 0],
        ],
        DEFAULT_THRESHOLDS,
      ),
      ['belowInit', 'init', 'growth', 'toolCalls', 'resultsPending', 'update', 'growth'],
    );
  });

  it('stays quiet past the mark where compaction catches the notes up (quietAboveTokens), and the init still fires', () => {
    const quiet = { ...SMALL, quietAboveTokens: 5_000 };
    assert.deepEqual(
      run(
        [
          [6_000, 0],
          [7_500, 0],
          [4_000, 0],
          [5_100, 0],
          [6_200, 0],
        ],
        quiet,
      ),
      ['init', 'nearCompaction', 'growth', 'nearCompaction', 'nearCompaction'],
    );
    assert.deepEqual(
      run(
        [
          [2_500, 0],
          [3_600, 0],
          [5_100, 0],
        ],
        quiet,
      ),
      ['init', 'update', 'nearCompaction'],
    );
  });

  it('is pure: the input state is never changed', () => {
    const state: TriggerState = { initialized: true, tokensAtLastUpdate: 100, toolCallsSinceUpdate: 1 };
    const copy = { ...state };
    observeResponse(state, { contextTokens: 5_000, toolCalls: 2 }, SMALL);
    assert.deepEqual(state, copy);
  });
});

describe('session notes template', () => {
  const count = (s: string): number => s.split(/\s+/).filter(Boolean).length; // words, for exact numbers

  it('has the title and the nine sections, each with an italic guide line', () => {
    const parsed = parseNotes(DEFAULT_TEMPLATE, count);
    assert.deepEqual(
      parsed.sections.map((s) => s.heading),
      [
        'Session Title',
        'Current State',
        'Task specification',
        'Files and Functions',
        'Workflow',
        'Errors & Corrections',
        'Codebase and System Documentation',
        'Learnings',
        'Key results',
        'Worklog',
      ],
    );
    assert.ok(parsed.sections.every((s) => s.guide && s.guide.length > 10 && s.body === '' && s.tokens === 0));
    assert.equal(isTemplateOnly(DEFAULT_TEMPLATE, DEFAULT_TEMPLATE), true);
  });

  it('parses bodies and their tokens; shell comments in code fences are not headings', () => {
    const text = DEFAULT_TEMPLATE.replace(
      /(# Workflow\n_[^\n]*_\n)/,
      '$1```sh\n# build first\nnpm run build\n```\n',
    ).replace(/(# Current State\n_[^\n]*_\n)/, '$1Fixing the parser in src/a.ts\n');
    const parsed = parseNotes(text, count);
    assert.equal(parsed.sections.length, 10);
    const workflow = parsed.sections.find((s) => s.heading === 'Workflow');
    assert.equal(workflow?.body, '```sh\n# build first\nnpm run build\n```');
    const current = parsed.sections.find((s) => s.heading === 'Current State');
    assert.equal(current?.body, 'Fixing the parser in src/a.ts');
    assert.equal(current?.tokens, 5);
    assert.equal(current?.line, 4);
    assert.equal(parsed.tokens, count(text));
    assert.equal(isTemplateOnly(text, DEFAULT_TEMPLATE), false);
  });

  it('isTemplateOnly: blank lines, headings and guide lines are structure, even from an older template', () => {
    assert.equal(isTemplateOnly('', DEFAULT_TEMPLATE), true);
    assert.equal(
      isTemplateOnly('\n# Session Title\n_Old guide wording_\n\n# Notes\n*another guide*\n', DEFAULT_TEMPLATE),
      true,
    );
    assert.equal(isTemplateOnly('# Session Title\n_x_\nFixing login\n', DEFAULT_TEMPLATE), false);
    assert.equal(isTemplateOnly('# Session Title\n**bold is content**\n', DEFAULT_TEMPLATE), false);
    // CRLF line endings (an editor on Windows) change nothing.
    assert.equal(isTemplateOnly(DEFAULT_TEMPLATE.replace(/\n/g, '\r\n'), DEFAULT_TEMPLATE), true);
  });

  it('reads notes written by Claude Code 2.1.88 the same way', async () => {
    const text = await fsp.readFile(path.join(CC_FIXTURES, 'sm-session-memory-summary.md'), 'utf8');
    const parsed = parseNotes(text, count);
    assert.deepEqual(
      parsed.sections.map((s) => s.heading),
      parseNotes(DEFAULT_TEMPLATE, count).sections.map((s) => s.heading),
    );
    assert.match(parsed.sections[1].body, /^Fake notes written at .* after 13 user prompts/);
    assert.ok(parsed.sections.filter((s) => s.heading !== 'Current State').every((s) => s.body === '' && s.guide));
    assert.equal(isTemplateOnly(text, DEFAULT_TEMPLATE), false);
    assert.equal(
      isTemplateOnly(text.replace(/^Fake notes.*\n/gm, ''), DEFAULT_TEMPLATE),
      true,
      'its guide lines count as structure',
    );
  });

  it('reports sections and files over their caps, largest first', () => {
    const text = DEFAULT_TEMPLATE.replace(/(# Worklog\n_[^\n]*_\n)/, `$1${'w '.repeat(30)}\n`).replace(
      /(# Learnings\n_[^\n]*_\n)/,
      `$1${'l '.repeat(12)}\n`,
    );
    const parsed = parseNotes(text, count);
    const report = capViolations(parsed, { sectionTokens: 10, fileTokens: 1_000 });
    assert.deepEqual(report, {
      sections: [
        { heading: 'Worklog', tokens: 30 },
        { heading: 'Learnings', tokens: 12 },
      ],
    });
    assert.equal(isOverCap(report), true);
    assert.deepEqual(capViolations(parsed, { sectionTokens: 100, fileTokens: 50 }), {
      sections: [],
      file: { tokens: parsed.tokens },
    });
    assert.equal(isOverCap(capViolations(parsed, { sectionTokens: 100, fileTokens: 1_000 })), false);
  });

  const tempDir = useTempDirs();

  it('a user template at <configDir>/session-memory/config/template.md replaces the default; an empty one does not', async () => {
    const configDir = tempDir('engram-tpl-');
    assert.deepEqual(await loadTemplate(configDir), { text: DEFAULT_TEMPLATE, source: 'default' });
    const file = path.join(configDir, 'session-memory', 'config', 'template.md');
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, '   \n');
    assert.equal((await loadTemplate(configDir)).source, 'default');
    await fsp.writeFile(file, '# Goal\n_What we are doing_\n\n# Done\n_What is finished_');
    assert.deepEqual(await loadTemplate(configDir), {
      text: '# Goal\n_What we are doing_\n\n# Done\n_What is finished_\n',
      source: 'user',
      path: file,
    });
  });
});
