// Stale references on a repository with a real history (renames, deletes, changed functions, scripts
// and make targets), with memories written at its first commit and checked at its last; the same
// repository followed file event by file event; and the extractor's precision on prose.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { MemoryHealthIndex } from '../../../../src/core/memory/health/healthIndex';
import { memoryHealth } from '../../../../src/core/memory/health/memoryHealth';
import {
  extractReferences,
  MAX_REFERENCES_PER_MEMORY,
  scanReferences,
} from '../../../../src/core/memory/health/referenceExtract';
import { buildStaleHistory, type LabelledMemory } from '../../../bench/staleHistory';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs('all');

describe('stale references against a history of renames and deletes', () => {
  let root: string;
  let memories: LabelledMemory[];
  let index: MemoryHealthIndex;
  before(async () => {
    root = tempDir('engram-stale-');
    memories = buildStaleHistory(root);
    index = await MemoryHealthIndex.open(root);
    await index.setMemories(memories);
  });

  const staleOf = (file: string): string[] => (index.result(file)?.stale ?? []).map((s) => s.ref);

  it('flags the renamed file, the deleted file and its function, the removed function, script, target and script file', () => {
    assert.deepEqual(staleOf('project_session.md'), ['src/auth/session.ts']);
    assert.deepEqual(staleOf('project_tokens.md').sort(), ['refreshToken', 'src/auth/token.ts']);
    assert.deepEqual(staleOf('feedback_dates.md'), ['legacyFormat']);
    assert.deepEqual(staleOf('feedback_lint.md'), ['npm run lint']);
    assert.deepEqual(staleOf('project_deploy.md'), ['make deploy']);
    assert.deepEqual(staleOf('project_release.md'), ['./scripts/release.sh']);
    assert.deepEqual(staleOf('project_config.md'), ['parseConfig']);
  });

  it('gives reasons a person can act on', () => {
    const reasons = Object.fromEntries(
      memories.flatMap((m) => (index.result(m.file)?.stale ?? []).map((s) => [s.ref, s.reason])),
    );
    assert.equal(reasons['src/auth/session.ts'], 'no file or folder src/auth/session.ts in the workspace');
    assert.match(reasons.legacyFormat, /`legacyFormat` appears in no source file/);
    assert.equal(reasons['npm run lint'], 'no script "lint" in package.json');
    assert.equal(reasons['make deploy'], 'no target "deploy" in the Makefile');
  });

  it('leaves valid memories alone: live symbols, scripts, targets, ignored build output, URLs, examples, prose', () => {
    for (const m of memories.filter((x) => !x.stale)) assert.deepEqual(staleOf(m.file), [], m.file);
    const build = index.result('feedback_build.md');
    assert.deepEqual(build?.unchecked.map((u) => u.ref).sort(), ['.env', 'dist/']); // `dist/bundle.js` follows "never edit"
    assert.match(build?.unchecked[0]?.reason ?? '', /ignored by \.gitignore/);
  });

  it('a symbol named only in documentation (CHANGELOG, docs/) counts as gone', () => {
    assert.ok(fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8').includes('refreshToken'));
    assert.ok(staleOf('project_tokens.md').includes('refreshToken'));
  });

  it('follows file events: a restored file, a deleted one, a changed function, a new script', async () => {
    fs.writeFileSync(path.join(root, 'src/auth/session.ts'), 'export {};\n');
    fs.rmSync(path.join(root, 'src/util/format.ts'));
    fs.writeFileSync(path.join(root, 'src/config.ts'), 'export function parseConfig() {}\n');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    pkg.scripts.lint = 'eslint .';
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(pkg));
    const changed = await index.onFileEvents([
      { kind: 'create', path: path.join(root, 'src/auth/session.ts') },
      { kind: 'delete', path: 'src/util/format.ts' },
      { kind: 'change', path: 'src/config.ts' },
      { kind: 'change', path: 'package.json' },
    ]);
    assert.deepEqual(staleOf('project_session.md'), []);
    assert.deepEqual(staleOf('feedback_dates.md').sort(), ['formatDate', 'legacyFormat']);
    assert.deepEqual(staleOf('project_config.md'), []);
    assert.deepEqual(staleOf('feedback_lint.md'), []);
    assert.deepEqual(staleOf('reference_format.md'), ['src/util/format.ts']);
    // Only what the events can touch was checked again.
    assert.ok(!changed.includes('user_prefs.md'));
    assert.ok(!changed.includes('project_store.md'));
    fs.renameSync(path.join(root, 'src/auth/sessions.ts'), path.join(root, 'src/auth/store.ts'));
    await index.onFileEvents([{ kind: 'rename', from: 'src/auth/sessions.ts', path: 'src/auth/store.ts' }]);
    assert.deepEqual(staleOf('project_store.md'), []);
    fs.rmSync(path.join(root, 'src/auth/store.ts'));
    await index.onFileEvents([{ kind: 'delete', path: 'src/auth/store.ts' }]);
    assert.deepEqual(staleOf('project_store.md').sort(), ['SessionStore', 'SessionStore.open', 'createSession']);
  });

  it('takes a folder event for every file in the folder (renamed, then deleted)', async () => {
    fs.renameSync(path.join(root, 'src/auth'), path.join(root, 'src/identity'));
    await index.onFileEvents([{ kind: 'rename', from: 'src/auth', path: 'src/identity' }]);
    assert.deepEqual(staleOf('project_session.md'), ['src/auth/session.ts']);
    assert.ok(index.workspace.files.has('src/identity/session.ts'));
    assert.ok(!index.workspace.dirs.has('src/auth'));
    fs.rmSync(path.join(root, 'src/identity'), { recursive: true });
    await index.onFileEvents([{ kind: 'delete', path: path.join(root, 'src/identity') }]);
    assert.ok(![...index.workspace.files].some((f) => f.startsWith('src/identity/')));
  });

  it('re-reads a changed memory alone, searching the new words it names', async () => {
    const check = await index.onMemoryChanged('user_prefs.md', 'Dates go through `formatDateUtc()` in `parseConfig`.');
    assert.deepEqual(
      check?.stale.map((s) => s.ref),
      ['formatDateUtc'],
    );
    assert.equal(await index.onMemoryChanged('user_prefs.md', undefined), undefined);
    assert.equal(index.result('user_prefs.md'), undefined);
  });

  it('works outside git too, honouring .gitignore', async () => {
    const plain = tempDir('engram-stale-plain-');
    fs.mkdirSync(path.join(plain, 'src'));
    fs.writeFileSync(path.join(plain, '.gitignore'), 'build/\n');
    fs.writeFileSync(path.join(plain, 'src/app.ts'), 'export function startApp() {}\n');
    fs.mkdirSync(path.join(plain, 'build'));
    fs.writeFileSync(path.join(plain, 'build/old.ts'), 'export function stopApp() {}\n');
    const idx = await MemoryHealthIndex.open(plain);
    assert.equal(idx.workspace.git, false);
    await idx.setMemories([{ file: 'a.md', text: 'See src/app.ts, src/gone.ts, `startApp()` and `stopApp()`.' }]);
    assert.deepEqual(
      idx.result('a.md')?.stale.map((s) => s.ref),
      ['stopApp', 'src/gone.ts'],
    );
  });
});

describe('memoryHealth', () => {
  it('never prints back a secret a memory holds', async () => {
    const ws = tempDir('engram-health-ws-');
    const memoryDir = tempDir('engram-health-mem-');
    const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
    fs.writeFileSync(
      path.join(memoryDir, 'project_token.md'),
      `The CI token is \`${token}\` and \`missingHelper()\`.\n`,
    );
    const [health] = await memoryHealth({ memoryDir }, ws);
    assert.equal(health.file, 'project_token.md');
    assert.ok(!JSON.stringify(health).includes(token), JSON.stringify(health));
    assert.ok(health.stale.some((s) => s.ref === 'missingHelper'));
  });
});

describe('extractReferences', () => {
  const refs = (text: string): string[] => extractReferences(text).map((r) => `${r.kind}:${r.ref}`);

  it('finds paths, symbols and commands, with their lines', () => {
    const found = extractReferences('Edit `src/a.ts`.\nCall `Store.open()` then `npm run build`.\nSee docs/.');
    assert.deepEqual(
      found.map((r) => [r.kind, r.ref, r.line]),
      [
        ['path', 'src/a.ts', 1],
        ['symbol', 'Store.open', 2],
        ['command', 'npm run build', 2],
        ['path', 'docs/', 3],
      ],
    );
    assert.deepEqual(refs('Key `engram.memory.recall`, `MAX_FILES`, `readUsage`, `make lint`, `node scripts/x.mjs`'), [
      'symbol:engram.memory.recall',
      'symbol:readUsage',
      'command:make lint',
      'command:node scripts/x.mjs',
    ]);
  });

  it('leaves prose, URLs, versions, globs, placeholders, home paths, flags and examples out', () => {
    const text = [
      'We use `pnpm`, and/or `true`, e.g. TCP/IP on 2024/01/02, v1.2.3 and `1.2.3`.',
      'See https://github.com/a/b.ts and www.example.com/x.js and github.com/owner/repo.',
      'Globs `src/**/*.ts`, placeholders `<dir>/x.ts`, `path/to/file.ts`, `$HOME/x.sh`, `{id}.json`.',
      'Home `~/notes/a.md`, package `@scope/pkg`, flag `--data-dir`, make sure to run make.',
      'A `Session` word, but the class `Session` counts.',
      'Write it to `CLAUDE.md` or .claude/settings.local.json, not `.vscode/launch.json`.',
      'Style: `camelCase` and `snake_case` names, `TypeScript` on `macOS`, `PostgreSQL` via `GraphQL`.',
      '```ts',
      'const x = exampleHelper(); import "src/example.ts";',
      '```',
    ].join('\n');
    assert.deepEqual(refs(text), ['symbol:Session']);
  });

  it('does not check what a memory names as removed or to avoid', () => {
    assert.deepEqual(refs('Never call `moment()`; use `formatDate()` instead of `dayjsFormat()`.'), [
      'symbol:formatDate',
    ]);
    assert.deepEqual(refs('The old `src/dates.ts` was removed. Moved from `src/a.ts` to `src/b.ts`.'), [
      'path:src/b.ts',
    ]);
    assert.deepEqual(refs("Don't run npm run legacy; run npm run build."), ['command:npm run build']);
  });

  it('caps the references of one file and counts the rest', () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `\`src/f${i}.ts\` and \`fn${i}()\``).join('\n');
    const { refs, total } = scanReferences(text);
    assert.equal(refs.length, MAX_REFERENCES_PER_MEMORY);
    assert.equal(total, 20_000);
  });
});
