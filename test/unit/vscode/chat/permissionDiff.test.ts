import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { ChatItemsModel } from '../../../../src/vscode/chat/chatItemsModel';
import { PermissionBridge } from '../../../../src/vscode/chat/permissionBridge';
import { permissionDiff } from '../../../../src/vscode/chat/permissionDiff';

const show = (d: ReturnType<typeof permissionDiff>) =>
  d?.lines.map((l) => `${{ add: '+', del: '-', ctx: ' ' }[l.kind]}${l.text}`);

test('an Edit is shown as whole lines of the file, with context and the line it starts on', () => {
  const file = 'a\nb\nc\nd\nconst s = "Hello";\ne\nf\ng\nh\n';
  const d = permissionDiff('Edit', { file_path: 'src/x.js', old_string: 'Hello', new_string: 'Welcome' }, file);
  assert.equal(d?.path, 'src/x.js');
  assert.equal(d?.startLine, 2);
  assert.deepEqual(show(d), [' b', ' c', ' d', '-const s = "Hello";', '+const s = "Welcome";', ' e', ' f', ' g']);
  assert.equal(d?.omitted, 0);
});

test('an Edit whose text is not in the file (or no file) diffs old_string against new_string', () => {
  const d = permissionDiff(
    'Edit',
    { file_path: 'x', old_string: 'one\ntwo\nthree', new_string: 'one\n2\nthree\nfour' },
    undefined,
  );
  assert.equal(d?.startLine, undefined);
  assert.deepEqual(show(d), [' one', '-two', '+2', ' three', '+four']);
});

test('a Write of a new file shows its content as added; over an existing file, only the changed stretch', () => {
  assert.deepEqual(show(permissionDiff('Write', { file_path: 'n.txt', content: 'x\ny\n' }, undefined)), ['+x', '+y']);
  const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
  const next = old.replace('line 10', 'line ten');
  assert.deepEqual(show(permissionDiff('Write', { file_path: 'f', content: next }, old)), [
    ' line 7',
    ' line 8',
    ' line 9',
    '-line 10',
    '+line ten',
    ' line 11',
    ' line 12',
    ' line 13',
  ]);
});

test('a big input is cut, saying how many lines were left out, and long lines are clipped', () => {
  const content = Array.from({ length: 500 }, (_, i) => `row ${i}`).join('\n');
  const d = permissionDiff('Write', { file_path: 'big', content }, undefined);
  assert.equal(d?.lines.length, 120);
  assert.equal(d?.omitted, 380);
  const wide = permissionDiff('Edit', { file_path: 'w', old_string: 'a', new_string: 'b'.repeat(5000) }, undefined);
  assert.ok((wide?.lines[1].text.length ?? 0) < 500);
});

test('MultiEdit applies its edits in turn; other tools and bad inputs get no diff', () => {
  const d = permissionDiff(
    'MultiEdit',
    {
      file_path: 'm',
      edits: [
        { old_string: 'a', new_string: 'b' },
        { old_string: 'b', new_string: 'c' },
      ],
    },
    'a\n',
  );
  assert.deepEqual(show(d), ['-a', '+b', '-b', '+c']);
  assert.equal(permissionDiff('Bash', { command: 'ls' }, undefined), undefined);
  assert.equal(permissionDiff('Edit', { file_path: 'x', old_string: 1 }, undefined), undefined);
});

test('the bridge reads the file against the working directory and puts the diff on the prompt', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-permdiff-'));
  try {
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src', 'greet.js'), 'function greet() {\n  return "Hello";\n}\n');
    let posted!: () => void;
    const shown = new Promise<void>((r) => {
      posted = r;
    });
    const items = new ChatItemsModel((m) => {
      if (m.type === 'item' && m.item.kind === 'permission') posted();
    });
    const bridge = new PermissionBridge(items, () => dir);
    const answer = bridge.ask(
      {
        toolName: 'Edit',
        toolUseId: 't1',
        summary: 'Edit src/greet.js',
        input: { file_path: 'src/greet.js', old_string: 'Hello', new_string: 'Welcome' },
      },
      new AbortController().signal,
    );
    await shown;
    const item = items.find('perm-t1');
    assert.ok(item?.kind === 'permission');
    assert.equal(item.diff?.startLine, 1);
    assert.deepEqual(show(item.diff), [' function greet() {', '-  return "Hello";', '+  return "Welcome";', ' }']);
    bridge.answer('perm-t1', 'deny');
    assert.equal(await answer, 'deny');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
