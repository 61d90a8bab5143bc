// What became of a recalled memory (issue 32 item 4), on real memory folders: a turn whose reply or tool
// calls show the memory's references or distinctive words counts "used" with that evidence; a turn that
// only echoes the question does not; a later message that corrects the memory counts "corrected" and
// queues a proposed update in the review queue. Old use-count files (without the new fields) still read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, test } from 'node:test';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { attachAutoMemory } from '../../../../src/core/memory/autoMemory/attach';
import type { AutoMemoryEvent } from '../../../../src/core/memory/autoMemory/extraction';
import { listPending } from '../../../../src/core/memory/autoMemory/pendingQueue';
import { readUsage, recordUse } from '../../../../src/core/memory/autoMemory/usageCounts';
import { correctionOf, usedEvidence } from '../../../../src/core/memory/health/turnOutcome';
import { linkMemoryOutcome } from '../../../../src/core/session/memoryOutcomeLink';
import { silentLogger } from '../../../../src/core/ports';
import { startSession } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

const PNPM = `---
name: Package manager
description: install and run scripts with npm
type: project
---
Install dependencies with \`npm ci\` and run the checks with \`npm run lint\` before every commit.
`;
const DEPLOY = `---
name: Deploys
description: staging first, canary an hour
type: project
---
Deploys go through the staging cluster first; the canary runs for an hour before production.
`;

function memoryFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-outcome-'));
  fs.writeFileSync(path.join(dir, 'project_pm.md'), PNPM);
  fs.writeFileSync(path.join(dir, 'project_deploy.md'), DEPLOY);
  fs.writeFileSync(
    path.join(dir, 'MEMORY.md'),
    '- [Package manager](project_pm.md) — npm ci, npm run lint\n- [Deploys](project_deploy.md) — staging first\n',
  );
  return dir;
}

/** A session's two event streams, driven by the test as an agent would. */
function session(dir: string) {
  const agent = new Set<(e: AgentEvent) => void>();
  const memory = new Set<(e: AutoMemoryEvent) => void>();
  const proposed: string[] = [];
  const handle = linkMemoryOutcome({
    memoryDir: dir,
    sessionId: 'sess-1',
    logger: silentLogger,
    onAgent: (l) => (agent.add(l), () => agent.delete(l)),
    onMemory: (l) => (memory.add(l), () => memory.delete(l)),
    onProposed: (f) => proposed.push(f),
    now: () => new Date('2026-12-05T03:00:00Z'),
  });
  const turn = async (prompt: string, recalled: string[], reply: string, tools: AgentEvent[] = []) => {
    for (const l of agent) l({ type: 'turnStart', prompt });
    for (const l of memory) l({ type: 'memoryRecalled', files: recalled });
    for (const e of tools) for (const l of agent) l(e);
    const message = { role: 'assistant' as const, content: [{ type: 'text' as const, text: reply }] };
    for (const l of agent) l({ type: 'assistantMessage', message, messageId: 'm', partial: false });
    const usage = { input_tokens: 1, output_tokens: 1 };
    for (const l of agent) l({ type: 'turnEnd', reason: 'end_turn', text: reply, usage, modelCalls: 1 });
    await handle.idle();
  };
  return { turn, proposed, handle };
}

const bash = (command: string): AgentEvent => ({
  type: 'toolCall',
  id: 't1',
  name: 'Bash',
  input: { command },
  summary: command,
});

test('a turn whose tool calls follow the memory counts used, with the evidence kept', async () => {
  const dir = memoryFolder();
  const s = session(dir);
  await s.turn('get the dependencies in and check my change', ['project_pm.md'], 'Installed and linted.', [
    bash('npm ci && npm run lint'),
  ]);
  const u = (await readUsage(dir))['project_pm.md'];
  assert.equal(u.used, 1);
  assert.deepEqual(u.usedEvidence, [['npm run lint', 'install', 'ci']]);
  assert.equal(u.corrected, undefined);
});

test('a turn without evidence does not count used (an echo of the question is no evidence)', async () => {
  const dir = memoryFolder();
  const s = session(dir);
  await s.turn('when do deploys reach production after staging?', ['project_deploy.md'], 'I am not sure; let me know.');
  await s.turn(
    'what about the canary and the staging cluster?',
    ['project_deploy.md'],
    'The canary and the staging cluster: see the docs.',
  );
  assert.equal((await readUsage(dir))['project_deploy.md']?.used, undefined);
  await s.turn(
    'how do we ship?',
    ['project_deploy.md'],
    'Through the staging cluster, then the canary runs for an hour.',
  );
  assert.equal((await readUsage(dir))['project_deploy.md']?.used, 1);
});

test('a correction counts corrected and queues a proposed update for review', async () => {
  const dir = memoryFolder();
  const s = session(dir);
  await s.turn('install the dependencies', ['project_pm.md'], 'Running npm ci.', [bash('npm ci')]);
  await s.turn('no, we use pnpm now', [], 'Sorry: running pnpm install.', [bash('pnpm install')]);
  const u = (await readUsage(dir))['project_pm.md'];
  assert.equal(u.used, 1, 'the first turn acted on it');
  assert.equal(u.corrected, 1);
  assert.deepEqual(u.corrections, [{ at: '2026-12-05T03:00:00.000Z', message: 'no, we use pnpm now' }]);
  assert.deepEqual(s.proposed, ['project_pm.md']);
  const pending = await listPending(dir);
  assert.equal(pending.items.length, 1);
  assert.equal(pending.items[0].action, 'update');
  assert.equal(pending.items[0].base, PNPM);
  assert.match(pending.items[0].content, /\*\*Correction \(2026-12-05\):\*\* the user said "no, we use pnpm now"/);
  assert.match(pending.items[0].content, /package manager: the memory says npm, the message says pnpm/);
  assert.equal(fs.readFileSync(path.join(dir, 'project_pm.md'), 'utf8'), PNPM, 'the memory itself is unchanged');
  s.handle.dispose();
});

test('corrections are told from ordinary follow-ups', () => {
  assert.ok(correctionOf('Indent with tabs.', 'not tabs, spaces'));
  assert.ok(correctionOf('Install with npm install.', 'actually, we switched to yarn'));
  assert.equal(correctionOf('Install with npm install.', 'run npm install again please'), undefined);
  assert.equal(correctionOf('Install with npm install.', 'no, that is fine, thanks'), undefined);
  assert.equal(
    correctionOf('Deploys go through the staging cluster first.', 'now add a test for the parser'),
    undefined,
  );
});

test('a reply that takes the rival side is not "used", whatever words it shares', () => {
  const trace = {
    prompt: 'set up the repo',
    reply: 'Ran pnpm install; lint passes.',
    toolCalls: ['Bash {"command":"pnpm install"}'],
  };
  assert.deepEqual(usedEvidence('Install dependencies with `npm ci`; never pnpm (lockfile).', trace), []);
});

test('a use-count file written before the new fields still reads, and keeps its counts', async () => {
  const dir = memoryFolder();
  fs.writeFileSync(
    path.join(dir, '.usage.json'),
    JSON.stringify({
      version: 1,
      entries: { 'project_pm.md': { recalls: 3, reads: 1, lastUsed: '2026-11-01T00:00:00.000Z' } },
    }),
  );
  await recordUse(dir, ['project_pm.md'], 'recall');
  const u = (await readUsage(dir))['project_pm.md'];
  assert.equal(u.recalls, 4);
  assert.equal(u.used, undefined);
});

describe('in a real session turn (the test server over HTTP)', () => {
  const server = useTestServer({ demo: true });
  const tempDir = useTempDirs();

  it('a recalled memory the reply follows counts used; a turn whose reply does not, does not', async () => {
    const dir = memoryFolder();
    const harness = await startSession(server, {
      workspace: tempDir('engram-outcome-ws-'),
      dataDir: tempDir('engram-outcome-data-'),
    });
    const memory = attachAutoMemory(harness.session.agent, { memoryDir: dir, extraction: false });
    const outcome = linkMemoryOutcome({
      memoryDir: dir,
      sessionId: harness.session.agent.sessionId,
      logger: silentLogger,
      onAgent: (l) => harness.session.agent.on(l),
      onMemory: (l) => memory.on(l),
    });
    const recalled: string[][] = [];
    memory.on((e) => e.type === 'memoryRecalled' && recalled.push(e.files));
    try {
      server.enqueue({ content: [{ type: 'text', text: 'I cannot tell from here; ask the release owner.' }] });
      await harness.session.agent.runTurn('How do deploys reach production?');
      await outcome.idle();
      assert.deepEqual(recalled, [['project_deploy.md']], 'recalled for the first turn');
      assert.equal(
        (await readUsage(dir))['project_deploy.md']?.used,
        undefined,
        'a reply without its words is not a use',
      );

      fs.appendFileSync(path.join(dir, 'project_deploy.md'), '\nSmoke tests gate the promotion.\n'); // attached again
      server.enqueue({
        content: [{ type: 'text', text: 'It goes to the staging cluster first; the canary runs an hour.' }],
      });
      await harness.session.agent.runTurn('How do deploys reach production, again?');
      await outcome.idle();
      const u = (await readUsage(dir))['project_deploy.md'];
      assert.equal(u?.used, 1);
      assert.deepEqual(u?.usedEvidence, [['canary', 'cluster']]);
    } finally {
      outcome.dispose();
      memory.dispose();
    }
  });
});

test('a secret in a correcting message is redacted before it is counted or proposed', async () => {
  const dir = memoryFolder();
  const s = session(dir);
  const key = `sk-ant-api03-${'a1B2c3D4e5'.repeat(9)}AA`;
  await s.turn('install the dependencies', ['project_pm.md'], 'Running npm ci.', [bash('npm ci')]);
  await s.turn(`no, we use pnpm now; the token is ${key}`, [], 'ok');
  const u = (await readUsage(dir))['project_pm.md'];
  assert.equal(u.corrected, 1);
  assert.ok(!JSON.stringify(u).includes(key), 'not in the counts');
  const pending = await listPending(dir);
  assert.ok(!pending.items[0].content.includes(key), 'not in the proposal');
  assert.match(pending.items[0].content, /no, we use pnpm now/);
});
