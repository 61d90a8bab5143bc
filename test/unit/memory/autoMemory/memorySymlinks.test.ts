// Issue #13, class 3: no memory path follows a symlink out of the memory folder. Each test plants a
// link (index, topic file, trash folder, trash record, team folder) that points outside and checks that
// the write, index edit, prune, restore, rename, recall, inspect or team read neither changes nor shows
// anything out there. POSIX only: symlinks on Windows need special rights.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { buildMemoryView } from '../../../../src/core/inspection/memoryView';
import { loadMemoryIndex } from '../../../../src/core/memory/autoMemory/memoryIndex';
import { MemoryPathError } from '../../../../src/core/memory/autoMemory/memoryPaths';
import { listTrash, pruneEntry, restoreEntry } from '../../../../src/core/memory/autoMemory/memoryTrash';
import {
  changeType,
  ensureIndexed,
  removeEntry,
  renameEntry,
  setIndexEntry,
  stampProvenance,
  writeMemory,
  type WriteMemoryInput,
} from '../../../../src/core/memory/autoMemory/memoryWriter';
import { recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
import { useTempDirs } from '../../support/tempDirs';

const skip = process.platform === 'win32' ? 'symlinks need special rights on Windows' : false;
const tempDir = useTempDirs();
let dir: string;
let outside: string;
/** Every file outside the folder, with its bytes, to show nothing changed there. */
let before: Record<string, string>;

const SECRET = 'root:x:0:0:root:/root:/bin/bash OUTSIDE-SECRET\n';
const OUTSIDE_INDEX = '- [Outside](outside.md) — a line that belongs to another file\n';

beforeEach(() => {
  const root = tempDir('engram-memlinks-');
  dir = path.join(root, 'memory');
  outside = path.join(root, 'outside');
  fs.mkdirSync(dir);
  fs.mkdirSync(path.join(outside, 'files'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'passwd'), SECRET);
  fs.writeFileSync(path.join(outside, 'index.md'), OUTSIDE_INDEX);
  fs.writeFileSync(
    path.join(outside, 'files', 'a.md'),
    `---\nname: planted\ndescription: planted\ntype: user\n---\n${SECRET}`,
  );
  fs.writeFileSync(path.join(outside, 'MEMORY.md'), '- [Team](t.md) — team line\n');
  fs.writeFileSync(path.join(outside, 't.md'), `---\nname: team\ndescription: team\ntype: project\n---\n${SECRET}`);
  before = snapshot(outside);
});

function snapshot(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const p = path.join(folder, name);
    if (fs.lstatSync(p).isFile()) out[name] = fs.readFileSync(p, 'utf8');
  }
  return out;
}

function assertOutsideUntouched(): void {
  assert.deepEqual(snapshot(outside), before, 'nothing outside the memory folder changed');
}

const provenance = { originSessionId: 's', originMessageId: 'm' };
const input = (file: string): WriteMemoryInput => ({
  file,
  title: 'A',
  hook: 'hook',
  description: 'a memory',
  type: 'user',
  body: 'Body.',
  provenance,
});

describe('memory paths and planted symlinks', { skip }, () => {
  it('write: a topic file that links out is refused', async () => {
    fs.symlinkSync(path.join(outside, 'passwd'), path.join(dir, 'a.md'));
    await assert.rejects(writeMemory(dir, input('a.md')), MemoryPathError);
    await assert.rejects(changeType(dir, 'a.md', 'project'), MemoryPathError);
    await assert.rejects(
      stampProvenance(dir, 'a.md', provenance).then(() => undefined),
      MemoryPathError,
    );
    assertOutsideUntouched();
  });

  it('index: a MEMORY.md that links out is neither appended to nor rewritten', async () => {
    fs.symlinkSync(path.join(outside, 'index.md'), path.join(dir, 'MEMORY.md'));
    await assert.rejects(writeMemory(dir, input('a.md')), MemoryPathError);
    await assert.rejects(
      setIndexEntry(dir, { title: 'B', file: 'b.md', hook: '' }).then(() => undefined),
      MemoryPathError,
    );
    await assert.rejects(
      removeEntry(dir, 'outside.md').then(() => undefined),
      MemoryPathError,
    );
    fs.writeFileSync(path.join(dir, 'c.md'), '---\nname: c\ndescription: c\ntype: user\n---\nc\n');
    await assert.rejects(
      ensureIndexed(dir, 'c.md').then(() => undefined),
      MemoryPathError,
    );
    assertOutsideUntouched();
    assert.ok(fs.lstatSync(path.join(dir, 'MEMORY.md')).isSymbolicLink(), 'the link is left as it was');
    const index = await loadMemoryIndex(dir);
    assert.doesNotMatch(index.text, /another file/, 'the linked index is not loaded into the prompt');
    assert.ok(
      index.warnings.some((w) => /MEMORY\.md.*outside the memory folder/.test(w)),
      index.warnings.join('\n'),
    );
  });

  it('prune: the index edit does not follow a linked MEMORY.md, nor the move a linked trash', async () => {
    await writeMemory(dir, input('a.md'));
    fs.renameSync(path.join(dir, 'MEMORY.md'), path.join(outside, 'was-index.md'));
    before = snapshot(outside);
    fs.symlinkSync(path.join(outside, 'was-index.md'), path.join(dir, 'MEMORY.md'));
    await assert.rejects(pruneEntry(dir, 'a.md'), MemoryPathError);
    assert.ok(fs.existsSync(path.join(dir, 'a.md')), 'the topic file stays where it was');
    assert.deepEqual(fs.readdirSync(path.join(dir, '.trash')), [], 'the refused prune left no trash folder');
    fs.rmSync(path.join(dir, 'MEMORY.md'));
    fs.rmSync(path.join(dir, '.trash'), { recursive: true });
    fs.symlinkSync(outside, path.join(dir, '.trash'));
    await assert.rejects(pruneEntry(dir, 'a.md'), MemoryPathError);
    assertOutsideUntouched();
  });

  it('restore: a trash folder whose files/ or record links out brings nothing in', async () => {
    await writeMemory(dir, input('a.md'));
    const record = await pruneEntry(dir, 'a.md');
    const trash = path.join(dir, '.trash', record.id);
    fs.rmSync(path.join(trash, 'files'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'files'), path.join(trash, 'files'));
    await assert.rejects(restoreEntry(dir, record.id), MemoryPathError);
    assert.equal(fs.existsSync(path.join(dir, 'a.md')), false, 'the outside file was not moved in');
    assertOutsideUntouched();

    // A record that is a link to a file outside: not read, not listed.
    fs.writeFileSync(path.join(outside, 'prune.json'), fs.readFileSync(path.join(trash, 'prune.json')));
    before = snapshot(outside);
    fs.rmSync(path.join(trash, 'prune.json'));
    fs.rmSync(path.join(trash, 'files'));
    fs.symlinkSync(path.join(outside, 'prune.json'), path.join(trash, 'prune.json'));
    await assert.rejects(restoreEntry(dir, record.id), MemoryPathError);
    assert.deepEqual(await listTrash(dir), []);
    assertOutsideUntouched();
  });

  it('rename: neither end may lead out, and the index edit stays inside', async () => {
    await writeMemory(dir, input('a.md'));
    fs.symlinkSync(outside, path.join(dir, 'link'));
    await assert.rejects(renameEntry(dir, 'a.md', { file: 'link/a2.md' }), MemoryPathError);
    fs.symlinkSync(path.join(outside, 'passwd'), path.join(dir, 'p.md'));
    await assert.rejects(renameEntry(dir, 'p.md', { file: 'p2.md' }), MemoryPathError);
    fs.rmSync(path.join(dir, 'MEMORY.md'));
    fs.symlinkSync(path.join(outside, 'index.md'), path.join(dir, 'MEMORY.md'));
    await assert.rejects(renameEntry(dir, 'a.md', { title: 'Renamed' }), MemoryPathError);
    assertOutsideUntouched();
  });

  it('recall: a topic file that links to a file outside is never attached', async () => {
    fs.symlinkSync(path.join(outside, 'passwd'), path.join(dir, 'passwd.md'));
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '- [Passwd](passwd.md) — user accounts and passwords\n');
    const recalled = await recallForPrompt(dir, 'which user accounts and passwords exist?', []);
    assert.equal(
      recalled.blocks.some((b) => b.text.includes('OUTSIDE-SECRET')),
      false,
      'the linked file is not attached',
    );
    assert.deepEqual(recalled.files, []);
  });

  it('inspect and team: linked topic files, a linked index and a linked team folder show nothing from outside', async () => {
    fs.symlinkSync(path.join(outside, 'files', 'a.md'), path.join(dir, 'a.md'));
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '- [A](a.md) — planted\n');
    fs.symlinkSync(outside, path.join(dir, 'team'));
    const view = await buildMemoryView({ dir });
    const a = view.entries.find((e) => e.file === 'a.md');
    assert.ok(a, 'the index line is listed');
    assert.equal(a.missing, true, 'a link out counts as no file');
    assert.equal(a.tokens, null);
    assert.equal(
      view.entries.some((e) => e.group === 'team'),
      false,
      'the team folder outside is not read',
    );
    assert.equal(
      view.unindexed.some((e) => e.group === 'team'),
      false,
    );
    assert.ok(
      view.warnings.some((w) => /a\.md.*outside the memory folder/.test(w)),
      view.warnings.join('\n'),
    );
    assert.ok(
      view.warnings.some((w) => /team.*outside the memory folder/.test(w)),
      view.warnings.join('\n'),
    );
  });
});
