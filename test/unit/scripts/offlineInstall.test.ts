// `npm install && npm start` on a machine that reaches only the npm registry, with a fresh HOME (no
// node-gyp headers cached, no .npmrc): nothing the extension needs may download or compile a native
// module, every package the install brings accepts the Node version the README (and docs/testing.md)
// states, and the team server, whose SQLite addon may then be missing, says how to get it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadSqlite, SQLITE_MISSING } from '../../../packages/team-server/src/sqliteTeamStore';
import { useTempDirs } from '../support/tempDirs';

const root = path.resolve(__dirname, '../../..');
const tempDir = useTempDirs();

interface LockEntry {
  hasInstallScript?: boolean;
  optional?: boolean;
  engines?: { node?: string };
}
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const installed = Object.entries(lock.packages).filter(([key]) => key.startsWith('node_modules/'));

// Their install scripts only pick the platform's binary package, which npm fetched from the registry.
const REGISTRY_ONLY_SCRIPTS = new Set(['esbuild', '@vscode/vsce-sign']);

/** `1.2.3` as numbers, and how many parts it gives (`20.x`, `6.*` and `*` give fewer). */
function parts(version: string): { v: number[]; given: number } {
  const given = version
    .replace(/^[v=]/, '')
    .split('.')
    .filter((p) => /^\d+$/.test(p));
  const [a = 0, b = 0, c = 0] = given.map(Number);
  return { v: [a, b, c], given: given.length };
}

function compare(a: number[], b: number[]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of an npm range (`>=20`, `^14.13.1`, `14`, `10.x`), the forms package engines use. */
function accepts(comparator: string, version: number[]): boolean {
  const m = /^(>=|<=|>|<|\^|~)?(.+)$/.exec(comparator)!;
  const { v: want, given } = parts(m[2]);
  const c = compare(version, want);
  const sameUpTo = (n: number) => want.slice(0, Math.min(n, given)).every((p, i) => version[i] === p);
  switch (m[1]) {
    case '>=':
      return c >= 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '<':
      return c < 0;
    case '^':
      return c >= 0 && sameUpTo(want[0] > 0 ? 1 : 2);
    case '~':
      return c >= 0 && sameUpTo(2);
    default:
      return sameUpTo(3);
  }
}

function satisfies(range: string, version: string): boolean {
  const { v } = parts(version);
  // `>= 8` is `>=8`.
  const sets = range.replace(/([<>]=?|\^|~)\s+/g, '$1').split('||');
  return sets.some((set) =>
    set
      .trim()
      .split(/\s+/)
      .every((comparator) => accepts(comparator, v)),
  );
}

describe('installing without internet', () => {
  it('no package that a plain install needs runs a native build (better-sqlite3 is optional)', () => {
    const scripted = installed
      .filter(([, e]) => e.hasInstallScript && !e.optional)
      .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 13));
    assert.deepEqual(
      scripted.filter((name) => !REGISTRY_ONLY_SCRIPTS.has(name)),
      [],
    );
    assert.equal(lock.packages['node_modules/better-sqlite3']?.optional, true);
  });

  it('every package accepts the lowest Node the README, docs/testing.md and package.json state', () => {
    const lowest = /^>=([\d.]+)$/.exec(manifest.engines.node)?.[1];
    assert.ok(lowest, `engines.node is a lower bound: ${manifest.engines.node}`);
    for (const page of ['README.md', 'docs/testing.md']) {
      assert.match(
        fs.readFileSync(path.join(root, page), 'utf8'),
        new RegExp(`Node\\.js ${lowest.replace(/\./g, '\\.')} or newer`),
        page,
      );
    }
    const refused = installed
      .filter(([, e]) => e.engines?.node && !satisfies(e.engines.node, lowest))
      .map(([key, e]) => `${key} ${e.engines!.node}`);
    assert.deepEqual(refused, []);
  });

  it('the range check reads the forms in the lockfile', () => {
    assert.equal(satisfies('>=22', '20.19'), false);
    assert.equal(satisfies('^20.19.0 || >=22.12.0', '20.19'), true);
    assert.equal(satisfies('^18.18.0 || ^20.9.0 || >=21.1.0', '20.19'), true);
    assert.equal(satisfies('>=16 || 14 >=14.17', '20.19'), true);
    assert.equal(satisfies('>=0.6.11 <=0.7.0 || >=0.7.3', '20.19'), true);
    assert.equal(satisfies('^12.20.0 || ^14.13.1', '20.19'), false);
    assert.equal(satisfies('20.x || 22.x || 24.x', '20.19'), true);
    assert.equal(satisfies('6.* || 8.* || >= 10.*', '20.19'), true);
    assert.equal(satisfies('*', '20.19'), true);
    assert.equal(satisfies('>= 21', '20.19'), false);
  });

  it('the bundles npm start runs load no native module', {
    skip: fs.existsSync(path.join(root, 'dist', 'extension.js')) ? false : 'needs the build (node esbuild.mjs)',
  }, () => {
    for (const bundle of ['extension.js', 'engine.js', 'tokenizer.js', 'cli.js', 'testServer.js']) {
      const code = fs.readFileSync(path.join(root, 'dist', bundle), 'utf8');
      assert.doesNotMatch(code, /require\(["'](better-sqlite3|bindings|pg-native)["']\)|\.node["']\)/, bundle);
    }
  });
});

describe('the team server without better-sqlite3', () => {
  it('says what is missing, how to get it, and that PostgreSQL needs no addon', () => {
    const missing = Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
    assert.throws(
      () =>
        loadSqlite(() => {
          throw missing;
        }),
      { message: SQLITE_MISSING },
    );
    assert.match(SQLITE_MISSING, /npm install better-sqlite3/);
    assert.match(SQLITE_MISSING, /--db postgres:\/\//);
  });

  it('the bundle, run where no better-sqlite3 can be found, prints that message instead of a stack', {
    skip: fs.existsSync(path.join(root, 'dist', 'teamServer.js')) ? false : 'needs the build (node esbuild.mjs)',
  }, () => {
    const dir = tempDir('engram-team-alone-');
    fs.copyFileSync(path.join(root, 'dist', 'teamServer.js'), path.join(dir, 'teamServer.js'));
    const r = spawnSync(
      process.execPath,
      [path.join(dir, 'teamServer.js'), 'token', 'list', '--db', path.join(dir, 'team.db')],
      { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr.trim(), SQLITE_MISSING);
  });
});
