// Recall's related words (recallRelated.ts, recallRank.ts): a message finds the file that says what it
// means in other words, one related word alone never attaches a file, and related words do not change
// the count the relevance is divided by.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
import { recallIndexFor } from '../../../../src/core/memory/autoMemory/recallIndex';
import { clearBar, DEFAULT_RECALL_BAR, rankRecall } from '../../../../src/core/memory/autoMemory/recallRank';
import {
  RELATED_GROUP_COUNT,
  relatedConcepts,
  relatedTerms,
} from '../../../../src/core/memory/autoMemory/recallRelated';
import { queryTerms } from '../../../../src/core/memory/autoMemory/recallText';
import { RECALL_MIN_QUERY_TERMS } from '../../../../src/core/thresholds';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs();

/** file -> description (also its index line's hook) and body. */
const FILES: Record<string, { description: string; body: string }> = {
  'project_daily_notes.md': {
    description: 'daily notes: one page per day from the day template',
    body: 'Each day gets Daily/<date>.md, made from templates/day.md.',
  },
  'reference_runbook.md': {
    description: 'runbook for a failed nightly load, the steps to take',
    body: 'Look at the DAG log, retry once, then page the owner.',
  },
  'feedback_css.md': {
    description: 'colours come from the design tokens, never a hex value',
    body: 'Use var(--brand) in the module styles.',
  },
  'project_deploy.md': {
    description: 'deploys go out with the release script after CI is green',
    body: 'Tag, then run release.sh; roll back with the previous tag.',
  },
  'user_role.md': {
    description: 'the user is a data engineer who knows Python and SQL well',
    body: 'Skip the basics.',
  },
  'project_thesis.md': {
    description: 'the dissertation is due in June, chapter 3 needs work',
    body: 'Built with pandoc from chapters/.',
  },
};

function folder(): string {
  const dir = path.join(tempDir('engram-related-'), 'memory');
  fs.mkdirSync(dir, { recursive: true });
  const index: string[] = [];
  for (const [file, { description, body }] of Object.entries(FILES)) {
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: ${file.replace('.md', '')}\ndescription: ${description}\ntype: project\n---\n\n${body}\n`,
    );
    index.push(`- [${file}](${file}) — ${description}`);
  }
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), index.join('\n'));
  return dir;
}

const NO_RELATED = { ...DEFAULT_RECALL_BAR, relatedWeight: 0 };

describe('recall related words', () => {
  it("has a general table, expands words and phrases, and leaves out forms of the message's own words", () => {
    assert.ok(RELATED_GROUP_COUNT >= 80, `${RELATED_GROUP_COUNT} groups`);
    const diary = 'Open my diary for today';
    const related = relatedTerms(diary, queryTerms(diary));
    assert.ok(related.includes('daili') && related.includes('journal'), related.join());
    assert.ok(
      relatedTerms('how long did that take?', queryTerms('how long did that take?')).includes('durat'),
      '"how long" is a phrase of the duration group',
    );
    assert.deepEqual(
      relatedConcepts('how long', []).map((c) => c.from),
      ['how long'],
    );
    const configure = relatedTerms('configure the environment', queryTerms('configure the environment'));
    assert.ok(
      !configure.includes('config') && !configure.includes('env'),
      `prefix and fuzzy already find them: ${configure.join()}`,
    );
    assert.deepEqual(
      relatedTerms('用户申请退钱之后系统是怎么处理的？', queryTerms('用户申请退钱之后系统是怎么处理的？')),
      [],
    );
  });

  it('finds the file a message means in words it does not share', async () => {
    const dir = folder();
    const q = 'Open my diary for today';
    const index = await recallIndexFor(dir, false);
    assert.deepEqual(
      clearBar(rankRecall(index, q, NO_RELATED), 5),
      [],
      'no word in common: nothing without related words',
    );
    assert.deepEqual(
      (await recallForPrompt(dir, q, [])).files.map((f) => f.file),
      ['project_daily_notes.md'],
    );
    assert.ok(
      index.terms.has('daili') && !index.terms.has('diari'),
      "the index knows its files' terms, not a search's",
    );
    // A related word also adds to a file the message's own words already reach.
    const ship = 'Can I ship it before CI is green?';
    const own = rankRecall(index, ship, NO_RELATED).find((r) => r.file === 'project_deploy.md');
    const withRelated = rankRecall(index, ship).find((r) => r.file === 'project_deploy.md');
    assert.ok(own && withRelated && withRelated.score > own.score, 'deploy and release are related to ship');
    assert.deepEqual(
      (await recallForPrompt(dir, ship, [])).files.map((f) => f.file),
      ['project_deploy.md'],
    );
  });

  it('never attaches a file for one related word alone', async () => {
    const dir = folder();
    const q = 'Explain the difference between a process and a thread';
    assert.ok(relatedTerms(q, queryTerms(q)).includes('runbook'), 'process is related to runbook and steps');
    const index = await recallIndexFor(dir, false);
    assert.ok(
      !rankRecall(index, q).some((r) => r.file === 'reference_runbook.md'),
      "one of the message's words behind it is not enough",
    );
    assert.deepEqual((await recallForPrompt(dir, q, [])).files, []);
    for (const unrelated of [
      'What is the time complexity of binary search?',
      'Write a haiku about autumn leaves',
      'Sort this list of names by length',
    ]) {
      assert.deepEqual((await recallForPrompt(dir, unrelated, [])).files, [], unrelated);
    }
  });

  it("divides by the message's own terms, however many related words it has", async () => {
    const index = await recallIndexFor(folder(), false);
    const q = 'The release broke, should I roll back the deploy and page someone?';
    const own = queryTerms(q);
    assert.ok(relatedTerms(q, own).length > own.length, 'more related terms than own ones');
    const ranked = rankRecall(index, q);
    assert.ok(ranked.length > 0);
    const per = Math.max(own.length, RECALL_MIN_QUERY_TERMS);
    for (const r of ranked)
      assert.ok(Math.abs(r.relevance - r.score / per) < 1e-9, `${r.file}: ${r.relevance} vs ${r.score / per}`);
  });
});
