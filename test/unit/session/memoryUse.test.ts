// A session counts each use of a memory (recalled into a turn, or read by the agent) in the memory
// folder's `.usage.json`, and says once, with the action that opens the memory pane, that MEMORY.md has
// passed 80% of its cap. Real session, real SDK over HTTP against the project's test server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import { autoMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { readUsage } from '../../../src/core/memory/autoMemory/usageCounts';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import type { SessionEvent } from '../../../src/core/session/sessionEvents';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';

let root: string;
before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'engram-memuse-')));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

function seed(dir: string, n: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    const file = `topic_${i}.md`;
    const name = i === 7 ? 'Deploy checklist' : `Entry ${i}`;
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: ${name}\ndescription: ${name} in one line\ntype: project\n---\n\n${name}.\n`,
    );
    lines.push(`- [${name}](${file}) — ${i === 7 ? 'steps before a production deploy' : `hook ${i}`}`);
  }
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), `${lines.join('\n')}\n`);
}

it('counts a recall and a Read of a topic file, and warns once about the cap with an action', async () => {
  const cwd = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(cwd, { recursive: true });
  const dir = await autoMemoryDir(dataDir, cwd);
  seed(dir, 165);
  const server = await startTestServer();
  try {
    server.enqueue(
      {
        content: [
          {
            type: 'tool_use',
            id: 'toolu_01CCCCCCCCCCCCCCCCCCCCCC',
            name: 'Read',
            input: { file_path: path.join(dir, 'topic_3.md') },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Done.' }] },
      { content: [{ type: 'text', text: 'Again.' }] },
    );
    const session = await openEngramSession(
      {
        cwd,
        dataDir,
        client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
        trusted: true,
        permissionPrompt: { ask: async () => 'allowOnce' },
        version: '0.0.0-test',
        entrypoint: 'vscode',
      },
      new SettingsStore({ 'memory.extraction.enabled': false, 'sessionNotes.enabled': false }),
    );
    const events: SessionEvent[] = [];
    session.on((e) => events.push(e));
    await session.runTurn('What is on the production deploy checklist?');
    await session.runTurn('And once more?');
    await session.finish();

    const recalled = events.flatMap((e) =>
      e.type === 'memory' && e.event.type === 'memoryRecalled' ? e.event.files : [],
    );
    assert.ok(recalled.includes('topic_7.md'), `recalled ${recalled.join(', ')}`);
    // Counts are written in the background: wait until both landed.
    const end = Date.now() + 5_000;
    let usage = await readUsage(dir);
    while ((!usage['topic_3.md'] || !usage['topic_7.md']) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 20));
      usage = await readUsage(dir);
    }
    assert.equal(usage['topic_3.md']?.reads, 1);
    assert.equal(usage['topic_7.md']?.recalls, 1);
    assert.equal(usage['MEMORY.md'], undefined, 'the index is no entry');

    const warnings = events.filter((e) => e.type === 'notice' && e.action === 'openMemory');
    assert.equal(warnings.length, 1, 'said once per session');
    const w = warnings[0] as Extract<SessionEvent, { type: 'notice' }>;
    assert.equal(w.level, 'warning');
    assert.match(w.text, /^MEMORY\.md is past 80% of its cap \(165 of 200 lines, [\d.]+ of 25 KB\)/);
    assert.equal(w.words?.template.includes('{0} of {1} lines'), true);
  } finally {
    await server.close();
  }
});
