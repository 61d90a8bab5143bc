// The cost line after something changed the prompt before the next request (issue 31): an edited summary
// applied from the compaction preview, and "Not relevant" on a recalled memory. The figures the session
// gives for the next request (what the hosts show) are checked against what the test server, which keeps
// the cache by prefix as the API does, bills for that request.
//
// Tolerances: the read part comes from the server's own numbers (what it reported reading and writing for
// earlier requests), so it must match exactly. The written part is the rest of the prompt, estimated
// locally and scaled to the server's count; it may be off by the new message's estimate (its characters /
// 4, against the server's per-block rounding) and the scaling, so 3% of the whole prompt, at least 20 tokens.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SUMMARY_SECTIONS } from '../../../src/core/compaction/summaryPrompt';
import { projectDir } from '../../../src/core/conversation/projectKey';
import { sessionGauge } from '../../../src/core/host/conversationDisplay';
import type { EngramSession } from '../../../src/core/session/engramSession';
import type { CacheCost, CacheSplit } from '../../../src/protocol/messages';
import { billed, MIN, readTurn, wholePrompt, withRig, type Rig, type Split } from '../support/cacheRig';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();

/**
 * Makes the change, takes the cost line as the hosts show it when the session says the context changed
 * (sessionGauge, on the 'context' event: the chat and the inspector both render that), sends `prompt`,
 * and checks the figures shown against what the server billed for that request.
 */
async function changeThenSend(
  rig: Rig,
  session: EngramSession,
  change: () => Promise<unknown>,
  prompt: string,
): Promise<[CacheSplit, Split]> {
  let shown: CacheCost | undefined;
  const off = session.on((e) => {
    if (e.type === 'context') shown = sessionGauge(session, session.settings).cache;
  });
  await change();
  off();
  assert.ok(shown, 'the session said the context changed');
  assert.deepEqual(sessionGauge(session, session.settings).cache, shown, 'one figure, whenever a view asks');
  assert.equal(shown.warm, true, 'the cache is still warm');
  // A view that asks a second later (the inspector after the chat) gets the same figures and the same
  // instant of expiry; only the milliseconds left moved.
  rig.clock.t += 1_000;
  const later = sessionGauge(session, session.settings).cache;
  assert.ok(later && shown.expiresAt !== undefined && shown.expiresAt > rig.clock.t);
  assert.deepEqual({ ...later, leftMs: 0 }, { ...shown, leftMs: 0 });
  assert.equal(later.leftMs, shown.leftMs - 1_000);
  rig.server.enqueue({ content: [{ type: 'text', text: 'Done.' }] });
  const before = rig.server.requests.length;
  await session.runTurn(prompt);
  const sent = billed(rig.server.requests[before]);
  const tolerance = Math.max(20, 0.03 * wholePrompt(sent));
  const figures = `shown ${JSON.stringify(shown.ifWarm)}, billed ${JSON.stringify(sent)}`;
  assert.equal(shown.ifWarm.read, sent.read, `read: ${figures}`);
  assert.ok(Math.abs(shown.ifWarm.write - sent.write) <= tolerance, `written: ${figures}`);
  assert.equal(shown.ifWarm.input, sent.input, figures);
  return [shown.ifWarm, sent];
}

describe('the next request cost after the prompt changed', () => {
  it('an edited summary applied from the preview: only what the cache still holds is read, the rest written', async () => {
    await withRig(tempDir, async (rig) => {
      const session = await rig.open({ 'promptCache.ttl': '5m' });
      await readTurn(rig, session, 'Read big.txt');
      rig.clock.t += MIN;
      await readTurn(rig, session, 'Read big.txt again, it may have changed');
      rig.clock.t += MIN;
      const body = (s: string): string[] => [1, 2, 3].map((n) => `- point ${n} about ${s.toLowerCase()}, `.repeat(8));
      const sections = SUMMARY_SECTIONS.map((s, i) => [`${i + 1}. ${s}:`, ...body(s)].join('\n'));
      rig.server.enqueue({
        content: [{ type: 'text', text: `<analysis>a</analysis><summary>${sections.join('\n')}</summary>` }],
      });
      const prepared = await session.compaction.prepareCompaction('full');
      assert.ok(prepared.review, 'the preview has a summary');
      // The person deletes lines in the preview (the second point of every section), then applies.
      const edited = prepared.review.text
        .split('\n')
        .filter((line) => !line.startsWith('- point 2'))
        .join('\n');
      const apply = async (): Promise<void> => {
        const applied = await session.compaction.applyCompaction(prepared, edited);
        assert.ok(applied.ok, applied.reason);
        assert.equal(applied.events[0].summaryEdited, true);
      };
      const [estimate, sent] = await changeThenSend(rig, session, apply, 'Go on from the summary, please.');
      assert.ok(sent.write > 500, `the edited summary is written again (${sent.write})`);
      assert.ok(estimate.write > 500);
      session.dispose();
    });
  });

  it('"Not relevant" on a recalled memory: the request reads up to the message before it and writes the rest again', async () => {
    await withRig(tempDir, async (rig) => {
      const memoryDir = path.join(projectDir(rig.dataDir, rig.cwd), 'memory');
      fs.mkdirSync(memoryDir, { recursive: true });
      const body = 'Staging deploys from main; production deploys only from a pushed, signed tag. '.repeat(12);
      fs.writeFileSync(
        path.join(memoryDir, 'project_deploy.md'),
        `---\nname: Deploy process\ndescription: how a tag gets deployed to production\ntype: project\n---\n\n${body}\n`,
      );
      fs.writeFileSync(
        path.join(memoryDir, 'MEMORY.md'),
        '- [Deploy process](project_deploy.md) — how a tag gets deployed to production\n',
      );
      const session = await rig.open({
        'promptCache.ttl': '5m',
        'memory.enabled': true,
        'memory.extraction.enabled': false,
      });
      const recalled: Array<{ file: string; words: string[] }> = [];
      session.on((e) => {
        if (e.type === 'memory' && e.event.type === 'memoryRecalled') recalled.push(...(e.event.matched ?? []));
      });
      await readTurn(rig, session, 'Read big.txt');
      rig.clock.t += MIN;
      rig.server.enqueue({ content: [{ type: 'text', text: 'Tags go to production.' }] });
      await session.runTurn('How does a tag get deployed to production?');
      assert.equal(recalled.length, 1, 'the memory was attached to the prompt');
      rig.clock.t += MIN;
      // A turn after it, which the dropped memory makes the next request write again.
      fs.writeFileSync(path.join(rig.cwd, 'notes.txt'), 'release notes: fixed the deploy script.\n'.repeat(150));
      rig.server.enqueue(
        { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(rig.cwd, 'notes.txt') } }] },
        { content: [{ type: 'text', text: 'The notes say the deploy script was fixed.' }] },
      );
      await session.runTurn('Read notes.txt');
      rig.clock.t += MIN;
      const dropIt = () => session.markNotRelevant(recalled[0].file, recalled[0].words);
      const [, sent] = await changeThenSend(rig, session, dropIt, 'Thanks, and what does big.txt compute?');
      assert.ok(
        sent.read > 1_000 && sent.write > 1_000,
        `a part is read and a part written again (${JSON.stringify(sent)})`,
      );
      session.dispose();
    });
  });
});
