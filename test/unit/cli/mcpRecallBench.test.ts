// The recall bench's MCP entry (test/bench/mcpRecall.ts) on a sample: questions of two evaluation folders,
// relevant and unrelated ones, asked through `engram mcp` by the SDK client, get exactly the files Engram's
// own recall attaches. The whole set runs in `npm run bench` (mcp_recall_identical_share).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { allEvalQuestions, compareMcpRecall } from '../../bench/mcpRecall';

it('asked through engram mcp, sample questions get the files the chat recall attaches', async () => {
  const all = allEvalQuestions();
  const sample = [
    ...all.filter((q) => q.folder === 'webapp').slice(0, 12),
    ...all.filter((q) => q.folder === 'payments-zh').slice(0, 6),
    ...all.filter((q) => q.folder === 'webapp' && q.expect.length === 0).slice(0, 4),
  ];
  const c = await compareMcpRecall(sample);
  assert.equal(c.asked, sample.length);
  assert.deepEqual(c.differences, []);
  assert.equal(c.identical, sample.length);
  assert.ok(c.withMemory >= 6, `only ${c.withMemory} sample questions recall anything: the comparison would be empty`);
});
