// What another agent's remember does in core (memoryRemember.ts), and how the inspector then shows it:
// the file names the client and the door (MCP or VS Code's language model tools), a second memory with
// the same title gets its own file, a full MEMORY.md is said, and empty or oversized text is refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { buildMemoryView } from '../../../src/core/inspection/memoryView';
import { rememberMemory } from '../../../src/core/memory/memoryRemember';
import { MemoryRequestError, openMemoryScope } from '../../../src/core/memory/memoryService';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('each');

async function scope() {
  const home = tempDir('engram-remember-');
  fs.mkdirSync(path.join(home, 'proj'));
  return openMemoryScope(path.join(home, 'data'), path.join(home, 'proj'));
}

it('records the client and the door, and the inspector says who wrote each memory', async () => {
  const s = await scope();
  const viaMcp = await rememberMemory(
    s,
    { text: 'Use pnpm, never npm, in this repository.', type: 'feedback', client: 'claude-code', via: 'mcp' },
    { review: false },
  );
  const viaLm = await rememberMemory(
    s,
    { text: 'Use pnpm, never npm, in this repository.', type: 'feedback', client: 'vscode-lm', via: 'vscode-lm' },
    { review: false },
  );
  assert.equal(viaMcp.file, 'feedback_use_pnpm_never_npm_in_this_repository.md');
  assert.equal(viaLm.file, 'feedback_use_pnpm_never_npm_in_this_repository_2.md', 'a taken name is not overwritten');
  const view = await buildMemoryView({ dir: s.memoryDir });
  const by = Object.fromEntries(view.entries.map((e) => [e.file, e]));
  assert.deepEqual(by[viaMcp.file]?.writtenBy, { client: 'claude-code', via: 'mcp' });
  assert.deepEqual(by[viaLm.file]?.writtenBy, { client: 'vscode-lm', via: 'vscode-lm' });
  assert.equal(by[viaMcp.file]?.origin, undefined, 'no Engram session is named');
  assert.equal(by[viaMcp.file]?.type, 'feedback');
});

it('says when MEMORY.md is near its cap, and refuses empty or oversized text', async () => {
  const s = await scope();
  fs.mkdirSync(s.memoryDir, { recursive: true });
  const lines = Array.from({ length: 185 }, (_, i) => `- [Entry ${i}](entry_${i}.md) — hook ${i}`);
  fs.writeFileSync(path.join(s.memoryDir, 'MEMORY.md'), `${lines.join('\n')}\n`);
  const saved = await rememberMemory(s, { text: 'One more fact.', client: 'c', via: 'mcp' }, { review: false });
  assert.equal(saved.status, 'saved');
  assert.match((saved.status === 'saved' && saved.capNote) || '', /MEMORY\.md has 186 of 200 lines/);
  for (const text of ['   ', 'x'.repeat(20_001)]) {
    await assert.rejects(
      rememberMemory(s, { text, client: 'c', via: 'mcp' }, { review: false }),
      (e: unknown) => e instanceof MemoryRequestError,
    );
  }
});
