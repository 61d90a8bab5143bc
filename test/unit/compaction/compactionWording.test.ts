// A manual `/compact` at 1.6% of the window told the model (and the person reading the timeline) that
// the conversation "grew too long for the context window" (issue 31). The opening message of a compacted
// conversation now says why it was compacted: the user chose to (manual, `engram compact`), or it grew
// too long (automatic and reactive, whose wording the prompt cache and the benchmarks have always seen).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { staticNotesSource } from '../../../src/core/compaction/notesSource';
import { runCompaction, type PipelineContext } from '../../../src/core/compaction/pipeline';
import { notesSummaryText } from '../../../src/core/compaction/sessionMemoryCompact';
import { resolveCompactionSettings } from '../../../src/core/compaction/settings';
import { fullSummaryText } from '../../../src/core/compaction/summaryPrompt';
import { entriesOf, sumTokens, type CompactionEntry } from '../../../src/core/compaction/types';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { summaryParts } from '../../../webview/inspector/summaryParts';
import { charTokens, ScriptedClient, SUMMARY_ANSWER } from './compactionSupport';

const settings = resolveCompactionSettings({
  contextWindow: 200_000,
  keepMinTokens: 20,
  keepMaxTokens: 60,
  keepMinTextMessages: 1,
});
const NOTES = '# Session Title\n_A title_\nWording test\n\n# Current State\n_Now?_\nReading.\n';
const TOO_LONG = /grew too long/;

/** A short conversation: a few hundred tokens, far below any mark (a manual /compact at ~1%). */
function short(): CompactionEntry[] {
  const messages: ApiMessage[] = [];
  for (let t = 0; t < 6; t++) {
    messages.push({ role: 'user', content: `Turn ${t}: read file ${t} ${'and say what it holds '.repeat(8)}` });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `File ${t} holds ${'words '.repeat(30)}` }] });
  }
  messages.push({ role: 'user', content: 'Turn 6: next' });
  return entriesOf(messages);
}

function ctx(automatic: boolean, extra: Partial<PipelineContext> = {}): PipelineContext {
  const summarizer = {
    client: new ScriptedClient([SUMMARY_ANSWER]),
    model: 'm',
    maxTokens: 100,
    system: [],
    tools: [],
  };
  return { settings, tokensOf: charTokens, fixedTokens: 0, automatic, summarizer, ...extra };
}

async function opening(stage: 'full' | 'session-memory', automatic: boolean): Promise<string> {
  const entries = short();
  const before = sumTokens(entries, charTokens);
  assert.ok(before < 0.02 * 200_000, `the conversation is small (${before} tokens)`);
  const out = await runCompaction(
    stage,
    entries,
    before,
    ctx(automatic, { notes: staticNotesSource({ text: NOTES }) }),
  );
  assert.equal(out.failure, undefined, out.failure?.reason);
  const result = out.applied.find((r) => r.stage === stage);
  assert.ok(result?.summaryText, `the ${stage} stage applied`);
  return result.summaryText;
}

describe('what a compacted conversation says about why', () => {
  it('a manual compaction, with a summary or with the notes, never says the conversation grew too long', async () => {
    for (const stage of ['full', 'session-memory'] as const) {
      const text = await opening(stage, false);
      assert.doesNotMatch(text, TOO_LONG, stage);
      assert.match(text, /^This session continues a conversation that the user chose to compact\. /, stage);
      // What the person reads in the inspector's timeline: the same opening, above the summary.
      const shown = summaryParts(text).find((p) => p.kind === 'text');
      assert.ok(shown && 'text' in shown);
      assert.doesNotMatch(shown.text, TOO_LONG);
      assert.match(shown.text, /the user chose to compact/);
    }
  });

  it('an automatic one keeps the wording the prompt cache and the benchmarks know, word for word', async () => {
    assert.match(
      await opening('full', true),
      /^This session continues a conversation that grew too long for the context window\. Everything before this point was replaced by the summary below, written when it was compacted\.\n\n<summary>/,
    );
    assert.equal(
      fullSummaryText('S', { kept: 'nothing' }),
      'This session continues a conversation that grew too long for the context window. Everything before this ' +
        'point was replaced by the summary below, written when it was compacted.\n\n<summary>\nS\n</summary>\n\n' +
        'Carry on from where the conversation stopped, with the next step above, without asking the user to ' +
        'repeat anything.',
    );
    assert.match(
      notesSummaryText('N'),
      /^This session continues a conversation that grew too long for the context window\. Its earlier part has been replaced by the session notes below, which were kept up to date while it happened; the most recent messages follow unchanged after this one\.\n\n<session-notes>\nN\n<\/session-notes>/,
    );
  });
});
