import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadConversation } from '../../../src/core/conversation/conversationLoader';
import { normaliseWithIds } from '../../../src/core/conversation/normalise';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import { openSessionTranscript } from '../../../src/core/conversation/transcriptWriter';
import { withTempDir } from '../support/tempDirs';
import { CC_FIXTURES, fixtureTranscripts } from './testSupport';

test('the bounded loader gives what normalising the whole file gives, for every prefix of every fixture', async () => {
  await withTempDir(async (dir) => {
    for (const name of await fixtureTranscripts()) {
      const raw = (await fsp.readFile(path.join(CC_FIXTURES, name), 'utf8')).split('\n').filter(Boolean);
      for (let n = 1; n <= raw.length; n++) {
        const file = path.join(dir, `${n}.jsonl`);
        await fsp.writeFile(file, raw.slice(0, n).join('\n') + '\n');
        const whole = normaliseWithIds((await readTranscript(file)).lines);
        const loaded = await loadConversation(file);
        assert.deepEqual(loaded.entries, whole.entries, `${name} cut after line ${n}`);
        assert.equal(loaded.lineCount, n);
        await fsp.rm(file);
      }
    }
  });
});

test('a long session with many compactions loads its last conversation only', async () => {
  await withTempDir(async (dir) => {
    const w = openSessionTranscript({ dataDir: dir, projectPath: '/p', sessionId: 's', version: '0.1.0' });
    const usage = { input_tokens: 1, output_tokens: 1 };
    for (let round = 0; round < 30; round++) {
      await w.appendUserPrompt(`prompt ${round}`);
      await w.appendAssistantBlock(
        { id: `m${round}`, model: 'x', stopReason: 'tool_use', usage },
        { type: 'tool_use', id: `t${round}`, name: 'Bash', input: {} },
      );
      await w.appendToolResult({ type: 'tool_result', tool_use_id: `t${round}`, content: 'x'.repeat(1000) });
      await w.appendAssistantBlock(
        { id: `n${round}`, model: 'x', stopReason: 'end_turn', usage },
        { type: 'text', text: `done ${round}` },
      );
      await w.appendCompactBoundary({ trigger: 'auto', preTokens: 1000 });
      await w.appendCompactSummary(`summary up to ${round}`);
    }
    await w.appendUserPrompt('final prompt');
    const loaded = await loadConversation(w.file);
    assert.deepEqual(
      loaded.entries.map((e) => e.message),
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'summary up to 29' },
            { type: 'text', text: 'final prompt' },
          ],
        },
      ],
    );
    assert.equal(loaded.lineCount, 30 * 6 + 1);
    assert.equal(loaded.tornTail, false);
  });
});
