// Background extraction with review on, against the test server over real HTTP with the real tools:
// the memory agent's Write and Edit become proposals in the queue (same tool schemas, so the fork's
// prefix is unchanged), MEMORY.md is left alone, a memoryPending event says how many wait, and the next
// request of the main conversation carries nothing of what waits. Accepting it then saves it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Agent } from '../../../../src/core/agent/agent';
import type { ApiMessage } from '../../../../src/core/conversation/types';
import {
  attachAutoMemory,
  prepareAutoMemory,
  type AutoMemoryHandle,
} from '../../../../src/core/memory/autoMemory/attach';
import type { AutoMemoryEvent } from '../../../../src/core/memory/autoMemory/extraction';
import { memoryWriteGate } from '../../../../src/core/memory/autoMemory/memoryPermissions';
import { EXTRACTION_MARKER } from '../../../../src/core/memory/autoMemory/memoryPrompts';
import { acceptPending, listPending } from '../../../../src/core/memory/autoMemory/pendingQueue';
import type { MessagesRequestBody } from '../../../../src/testServer/anthropicTestServer';
import { startSession } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

let handle: AutoMemoryHandle | undefined;
const server = useTestServer({
  settle: async () => {
    await handle?.idle();
    handle?.dispose();
    handle = undefined;
  },
});
const tempDir = useTempDirs();

const SECRET_WORDS = 'merge freeze starts 2026-12-18';
const PROJECT = `---\nname: Release freeze\ndescription: no merges to main from 2026-12-18 for the release\ntype: project\n---\n\nThe ${SECRET_WORDS}; only release fixes merge after it.\n\n**Why:** the release branch is cut that day.\n**How to apply:** plan feature work to land before it.\n`;

async function setup(
  review: boolean,
): Promise<{ agent: Agent; dir: string; events: AutoMemoryEvent[]; sessionId: string }> {
  const workspace = tempDir('engram-ws-');
  const dataDir = tempDir('engram-data-');
  const memory = await prepareAutoMemory(dataDir, workspace);
  let agent: Agent | undefined;
  const harness = await startSession(server, {
    workspace,
    dataDir,
    memory: memory.systemSlot,
    answer: () => 'deny',
    gate: memoryWriteGate(memory.dir, workspace, (t, i, c) => (agent as Agent).permissions.gate(t, i, c)),
  });
  agent = harness.session.agent;
  const events: AutoMemoryEvent[] = [];
  handle = attachAutoMemory(agent, {
    memoryDir: memory.dir,
    transcriptPath: harness.session.transcriptPath,
    review: () => review,
  });
  handle.on((e) => events.push(e));
  return { agent, dir: memory.dir, events, sessionId: harness.session.sessionId };
}

const text = (messages: ApiMessage[]): string => JSON.stringify(messages);
const isExtraction = (body: MessagesRequestBody): boolean => text(body.messages).includes(EXTRACTION_MARKER);

describe('extraction with review on', () => {
  it('queues what the memory agent writes, leaves the index alone, and keeps it out of the next prompt', async () => {
    const s = await setup(true);
    const topic = path.join(s.dir, 'project_release_freeze.md');
    const index = path.join(s.dir, 'MEMORY.md');
    server.enqueue(
      { content: [{ type: 'text', text: 'Noted: the freeze.' }] },
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: index } }] },
      {
        content: [
          { type: 'tool_use', name: 'Write', input: { file_path: topic, content: PROJECT } },
          {
            type: 'tool_use',
            name: 'Edit',
            input: { file_path: topic, old_string: 'only release fixes', new_string: 'only reviewed release fixes' },
          },
          {
            type: 'tool_use',
            name: 'Write',
            input: {
              file_path: index,
              content: '- [Release freeze](project_release_freeze.md) — no merges from 2026-12-18\n',
            },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Proposed project_release_freeze.md.' }] },
    );
    const first = server.requests.length;
    await s.agent.runTurn(`Heads up: the ${SECRET_WORDS}.`);
    await handle?.idle();

    const fork = server.requests.slice(first).filter((r) => isExtraction(r.body));
    assert.equal(fork.length, 3);
    assert.match(text(fork[0].body.messages.slice(-1)), /The user reviews memories before they are kept/);
    assert.deepEqual(
      fork[0].body.tools,
      server.requests[first].body.tools,
      'same tool schemas as the main conversation',
    );
    const answers = text(fork[2].body.messages.slice(-1));
    assert.match(answers, /Proposed project_release_freeze\.md for the user's review/);
    assert.doesNotMatch(answers, /"is_error":true/);

    assert.equal(fs.existsSync(topic), false, 'no topic file before it is accepted');
    assert.equal(fs.existsSync(index), false, 'the index is left alone');
    const { items } = await listPending(s.dir);
    assert.equal(items.length, 1);
    assert.equal(items[0].file, 'project_release_freeze.md');
    assert.match(items[0].content, /only reviewed release fixes/, 'the Edit applied to the proposal');
    assert.equal(items[0].sessionId, s.sessionId);
    assert.deepEqual(
      s.events.filter((e) => e.type === 'memoryPending'),
      [{ type: 'memoryPending', files: ['project_release_freeze.md'], waiting: 1 }],
    );
    assert.deepEqual(
      s.events.filter((e) => e.type === 'memorySaved'),
      [],
    );

    // The next turn: recall finds nothing, and nothing pending is in the request.
    server.enqueue(
      { content: [{ type: 'text', text: 'ok' }] },
      { content: [{ type: 'text', text: 'nothing to save' }] },
    );
    const before = server.requests.length;
    await s.agent.runTurn('When does the merge freeze start?');
    await handle?.idle();
    const next = server.requests[before].body;
    assert.doesNotMatch(
      JSON.stringify({ system: next.system, messages: next.messages.slice(-1) }),
      /only reviewed release fixes/,
    );
    assert.ok(!s.events.some((e) => e.type === 'memoryRecalled'));

    await acceptPending(s.dir, items[0].id);
    assert.match(fs.readFileSync(topic, 'utf8'), /only reviewed release fixes/);
    assert.equal(
      fs.readFileSync(index, 'utf8'),
      '- [Release freeze](project_release_freeze.md) — no merges to main from 2026-12-18 for the release\n',
    );
  });

  it('writes straight away with review off', async () => {
    const s = await setup(false);
    const topic = path.join(s.dir, 'project_release_freeze.md');
    server.enqueue(
      { content: [{ type: 'text', text: 'Noted.' }] },
      { content: [{ type: 'tool_use', name: 'Write', input: { file_path: topic, content: PROJECT } }] },
      { content: [{ type: 'text', text: 'Saved.' }] },
    );
    await s.agent.runTurn(`The ${SECRET_WORDS}.`);
    await handle?.idle();
    assert.ok(fs.existsSync(topic));
    assert.deepEqual((await listPending(s.dir)).items, []);
    assert.deepEqual(
      s.events.filter((e) => e.type === 'memorySaved').map((e) => e.type === 'memorySaved' && e.file),
      ['project_release_freeze.md'],
    );
  });
});
