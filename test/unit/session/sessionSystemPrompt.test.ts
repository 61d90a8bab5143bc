import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sessionSystemPrompt } from '../../../src/core/session/agentSession';

test('the system prompt is rebuilt from what is on disk now (after a compaction), keeping the session date', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-sysprompt-'));
  try {
    const cwd = path.join(root, 'project');
    fs.mkdirSync(cwd);
    fs.writeFileSync(path.join(cwd, 'CLAUDE.md'), 'Use tabs.\n');
    const now = new Date('2026-11-29T10:00:00Z');
    const setup = { cwd, dataDir: path.join(root, 'data'), trusted: true, now };
    const first = await sessionSystemPrompt({ ...setup, memory: { dir: '/m', index: '- [A](a.md) — first' } });
    const firstText = first.system.map((b) => b.text).join('\n');
    assert.match(firstText, /Use tabs\./);
    assert.match(firstText, /first/);
    fs.writeFileSync(path.join(cwd, 'CLAUDE.md'), 'Use spaces.\n');
    const second = await sessionSystemPrompt({ ...setup, memory: { dir: '/m', index: '- [B](b.md) — second' } });
    const secondText = second.system.map((b) => b.text).join('\n');
    assert.match(secondText, /Use spaces\./);
    assert.match(secondText, /second/);
    assert.doesNotMatch(secondText, /Use tabs\./);
    assert.equal(first.system[0].text, second.system[0].text, 'the fixed guidance block stays byte-identical');
    assert.match(secondText, /2026-11-29/);
    const untrusted = await sessionSystemPrompt({ ...setup, trusted: false });
    assert.doesNotMatch(
      untrusted.system.map((b) => b.text).join('\n'),
      /Use spaces\./,
      'untrusted workspaces get no project instructions',
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
