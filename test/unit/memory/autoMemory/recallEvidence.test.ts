// Recall's evidence (issue 22): a word common in ordinary English counts little (commonWords.ts), one
// shared word never attaches a file, a Chinese message's pairs across two words are not searched for,
// each ranked file says which of the message's words it matched, and a file the person said was not
// relevant for those words is not attached for them again (until undone).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { commonWordWeight, zipfOf } from '../../../../src/core/memory/autoMemory/commonWords';
import { recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
import { recallIndexFor } from '../../../../src/core/memory/autoMemory/recallIndex';
import { clearBar, rankRecall } from '../../../../src/core/memory/autoMemory/recallRank';
import { queryTerms, recallQueryTokens } from '../../../../src/core/memory/autoMemory/recallText';
import { readUsage, setNotRelevant } from '../../../../src/core/memory/autoMemory/usageCounts';
import { RECALL_COMMON_WORDS } from '../../../../src/core/thresholds';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs();

function folder(files: Record<string, string>): string {
  const dir = tempDir('engram-evidence-');
  for (const [file, description] of Object.entries(files)) {
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: ${file.replace('.md', '')}\ndescription: ${description}\ntype: project\n---\n\nDetails.\n`,
    );
  }
  fs.writeFileSync(
    path.join(dir, 'MEMORY.md'),
    Object.entries(files)
      .map(([f, d]) => `- [${f}](${f}) — ${d}`)
      .join('\n'),
  );
  return dir;
}

describe('recall evidence', () => {
  it('weighs a word by how common it is in ordinary English', () => {
    assert.ok(zipfOf('name') > 5.5, 'name is among the most common words');
    assert.equal(zipfOf('webhook'), 0, 'webhook is not in the table: rare');
    assert.equal(commonWordWeight('webhook', RECALL_COMMON_WORDS), 1);
    assert.ok(commonWordWeight(queryTerms('names')[0], RECALL_COMMON_WORDS) < 0.3, 'stemmed like the terms');
    const mid = commonWordWeight(queryTerms('release')[0], RECALL_COMMON_WORDS);
    assert.ok(mid > RECALL_COMMON_WORDS.floor && mid < 1, String(mid));
  });

  it('has the table scripts/genCommonWords.mjs writes from the word list and the stemmer installed', () => {
    const r = spawnSync(process.execPath, ['scripts/genCommonWords.mjs', '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  it('attaches nothing for one shared word, and says which words a file matched', async () => {
    const dir = folder({
      'feedback_types.md': 'new Python code passes mypy strict',
      'project_deploy.md': 'staging deploys from main, production from tags',
    });
    const index = await recallIndexFor(dir, false);
    assert.deepEqual(
      clearBar(rankRecall(index, 'How do I reverse a string in Python?'), 5),
      [],
      'Python alone is no evidence',
    );
    const [top] = clearBar(rankRecall(index, 'How does a tag get deployed to production?'), 5);
    assert.equal(top?.file, 'project_deploy.md');
    assert.deepEqual([...top.words].sort(), ['deploy', 'product', 'tag']);
  });

  it('leaves out a file the person said was not relevant for the words it matched, until undone', async () => {
    const dir = folder({
      'project_deploy.md': 'staging deploys from main, production from tags',
      'project_cache.md': 'product pages cached for five minutes',
    });
    const q = 'How does a tag get deployed to production?';
    const first = await recallForPrompt(dir, q, []);
    assert.deepEqual(
      first.files.map((f) => f.file),
      ['project_deploy.md'],
    );
    assert.deepEqual([...first.files[0].words].sort(), ['deployed', 'production', 'tag'], 'the words as typed');
    await setNotRelevant(dir, 'project_deploy.md', first.files[0].words);
    assert.deepEqual(
      (await readUsage(dir))['project_deploy.md']?.notRelevant,
      [first.files[0].words],
      'kept with the use counts',
    );
    assert.deepEqual(
      (await recallForPrompt(dir, 'Deploy a tag to production, please', [])).files,
      [],
      'the same words: not again',
    );
    const more = await recallForPrompt(dir, 'Which tag deploys staging and production?', []);
    assert.deepEqual(
      more.files.map((f) => f.file),
      ['project_deploy.md'],
      'another word it matches brings it back',
    );
    await setNotRelevant(dir, 'project_deploy.md', first.files[0].words, true);
    assert.equal((await readUsage(dir))['project_deploy.md']?.notRelevant, undefined, 'undone');
    assert.deepEqual(
      (await recallForPrompt(dir, q, [])).files.map((f) => f.file),
      ['project_deploy.md'],
    );
  });

  it('searches a Chinese message by its words, not by pairs across them', () => {
    const tokens = recallQueryTokens('二分查找的代码怎么写？');
    assert.ok(tokens.includes('代码') && tokens.includes('查找'));
    assert.ok(!tokens.includes('码怎') && !tokens.includes('分查'), tokens.join(' '));
    assert.ok(recallQueryTokens('某个大商户请求太多').includes('商户'), 'a word the dictionary lacks keeps its pair');
  });
});
