// `engram -p` and ripgrep (issue 35): the run uses the rg it is given (--rg-path, the settings file's
// engram.search.ripgrepPath, or an `rg` on PATH) and says so in its --verbose log; a path that does not
// run falls back to the JavaScript engine, with the reason. There is no rg on PATH on the test machines:
// the binary comes from the @vscode/ripgrep-universal devDependency, the package VS Code ships.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runEngramInProcess, type CliRun } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('each');

/** The devDependency's ripgrep for this machine. */
const RG = path.resolve(
  'node_modules/@vscode/ripgrep-universal/bin',
  `${process.platform}-${process.arch}`,
  process.platform === 'win32' ? 'rg.exe' : 'rg',
);

function where(): { cwd: string; dataDir: string; root: string } {
  const root = tempDir('engram-search-');
  const cwd = path.join(root, 'ws');
  fs.mkdirSync(cwd);
  fs.writeFileSync(path.join(cwd, 'notes.txt'), 'the secret word is pineapple\n');
  return { root, cwd, dataDir: path.join(root, 'data') };
}

/** One turn in which the model greps for "pineapple", run with `args`, PATH as given. */
async function grepTurn(args: string[], at: { cwd: string; dataDir: string }, pathValue = ''): Promise<CliRun> {
  server.enqueue(
    { content: [{ type: 'tool_use', name: 'Grep', input: { pattern: 'pineapple' } }] },
    { content: [{ type: 'text', text: 'Found it.' }] },
  );
  return runEngramInProcess(['-p', 'Where is the secret word?', '--verbose', '--output-format', 'json', ...args], {
    cwd: at.cwd,
    env: {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'test-key',
      ENGRAM_DATA_DIR: at.dataDir,
      PATH: pathValue,
    },
  });
}

/** The engine the turn's Grep ran on, as its transcript records it (the tool result's data). */
function grepEngine(run: CliRun): unknown {
  const { transcript } = JSON.parse(run.stdout) as { transcript: string };
  const lines = fs
    .readFileSync(transcript, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { toolUseResult?: { engine?: unknown; numFiles?: unknown } });
  const result = lines.find((l) => l.toolUseResult?.engine !== undefined)?.toolUseResult;
  assert.equal(result?.numFiles, 1, 'the Grep found notes.txt');
  return result?.engine;
}

function searchLine(run: CliRun): string {
  const line = run.stderr.split('\n').find((l) => l.startsWith('engram: Search: '));
  assert.ok(line, `no "Search:" line in:\n${run.stderr}`);
  return line;
}

describe('engram -p: which search engine runs', () => {
  it('uses the ripgrep --rg-path names and says its version and where it came from', async () => {
    assert.ok(fs.existsSync(RG), `the devDependency's ripgrep is missing: ${RG}`);
    const at = where();
    const run = await grepTurn(['--rg-path', RG], at);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(searchLine(run), `engram: Search: ripgrep 15.0.0 (--rg-path at ${RG})`);
    assert.equal(grepEngine(run), 'ripgrep');
  });

  it('finds an rg on PATH, and takes engram.search.ripgrepPath from the settings file', async () => {
    const at = where();
    // A folder holding `rg` (a link to the devDependency's binary), as an installed ripgrep would be.
    const bin = path.join(at.root, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(RG, path.join(bin, path.basename(RG)));
    const onPath = await grepTurn([], at, `${path.join(at.root, 'empty')}${path.delimiter}${bin}`);
    assert.equal(onPath.code, 0, onPath.stderr);
    assert.equal(searchLine(onPath), `engram: Search: ripgrep 15.0.0 (rg on PATH at ${path.join(bin, 'rg')})`);
    assert.equal(grepEngine(onPath), 'ripgrep');

    const settings = path.join(at.root, 'settings.json');
    fs.writeFileSync(settings, JSON.stringify({ 'engram.search.ripgrepPath': RG }));
    const fromFile = await grepTurn(['--settings', settings], at);
    assert.equal(searchLine(fromFile), `engram: Search: ripgrep 15.0.0 (engram.search.ripgrepPath at ${RG})`);
  });

  it('falls back to the JavaScript engine, with the reason, when the path is bad or there is no rg at all', async () => {
    const at = where();
    const missing = path.join(at.root, 'no-such', 'rg');
    const bad = await grepTurn(['--rg-path', missing], at);
    assert.equal(bad.code, 0, bad.stderr);
    assert.equal(
      searchLine(bad),
      `engram: Search: the JavaScript engine (no ripgrep found: --rg-path ${missing} does not exist)`,
    );
    assert.equal(grepEngine(bad), 'javascript');
    // A program that runs but is not ripgrep (this very Node) is refused too.
    const notRg = await grepTurn(['--rg-path', process.execPath], at);
    assert.match(searchLine(notRg), /the JavaScript engine \(no ripgrep found: --rg-path .+ is not ripgrep/);
    assert.equal(grepEngine(notRg), 'javascript');
    // A folder is not a program.
    const folder = await grepTurn(['--rg-path', at.cwd], at);
    assert.match(searchLine(folder), /--rg-path .+ is not a file\)$/);
    // Nothing set and nothing on PATH.
    const none = await grepTurn([], at, path.join(at.root, 'empty'));
    assert.match(searchLine(none), /^engram: Search: the JavaScript engine \(no ripgrep found: no rg on PATH/);
  });

  it('logs nothing about search without --verbose (stderr stays for what needs attention)', async () => {
    const at = where();
    server.enqueue({ content: [{ type: 'text', text: 'Hi.' }] });
    const run = await runEngramInProcess(['-p', 'hi', '--rg-path', RG], {
      cwd: at.cwd,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: at.dataDir },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /Search:/);
  });
});
