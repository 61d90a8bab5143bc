// `engram inspect` on a memory whose names hide characters (issue 22's spoofed names, in the terminal):
// a right-to-left override and a zero-width space are written out as <U+202E> and <U+200B>, never sent to
// the terminal raw, and the entry holding them is flagged, as the Memory Inspector flags it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { runCli } from '../../../src/cli/dispatcher';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();

it('writes hidden characters out and flags the entry that holds them', async () => {
  const root = tempDir('engram-inspect-hidden-');
  const memory = path.join(root, 'projects', '-home-dev-demo', 'memory');
  fs.mkdirSync(memory, { recursive: true });
  const topic = (name: string) => `---\nname: ${name}\ndescription: d\ntype: project\n---\nBody.\n`;
  fs.writeFileSync(path.join(memory, 'deploy.md'), topic('Deploy'));
  fs.writeFileSync(path.join(memory, 'plain.md'), topic('Plain'));
  fs.writeFileSync(
    path.join(memory, 'MEMORY.md'),
    '- [Deploy notes\u202Egpj.exe](deploy.md) — run\u200B it\n- [Plain](plain.md) — nothing hidden\n',
  );
  let stdout = '';
  const code = await runCli(['inspect', '--root', root], {
    stdout: (t) => void (stdout += t),
    stderr: () => undefined,
    env: {},
    cwd: root,
    signal: new AbortController().signal,
  });
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /[\u202E\u200B]/, 'no raw hidden character reaches the terminal');
  const spoofed = stdout.split('\n').find((l) => l.includes('Deploy notes'));
  assert.ok(spoofed, stdout);
  assert.match(spoofed, /Deploy notes<U\+202E>gpj\.exe \(deploy\.md\) — run<U\+200B> it/);
  assert.match(spoofed, /HIDDEN CHARACTERS <U\+202E> <U\+200B>\]/);
  const plain = stdout.split('\n').find((l) => l.includes('Plain'));
  assert.doesNotMatch(plain ?? '', /HIDDEN/);
});
