// Issue #20, part 4, through the commands people run: temp files killed writers left are cleaned, a
// run that could not write its first line leaves no empty transcript and hands back no session id,
// output limits and windows beyond the model's are usage errors, and a data folder that is a file or
// a transcript that is a folder are said in words.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, mock } from 'node:test';
import { listSessions } from '../../../src/core/conversation/transcriptReader';
import { projectDir, sessionTranscriptPath } from '../../../src/core/conversation/projectKey';
import { autoMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { runEngramInProcess, type CliRun } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('each');
let workspace: string;
let dataDir: string;

function fresh(): void {
  const root = tempDir('engram-edges-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
}

function engram(args: string[]): Promise<CliRun> {
  return runEngramInProcess(args, {
    cwd: workspace,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir },
  });
}

/** A temp file as writeFileAtomic names it, `hours` old. */
function tempFile(dir: string, name: string, hours: number): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `.${name}.4242.0badc0de.tmp`);
  fs.writeFileSync(file, 'half a file');
  const at = new Date(Date.now() - hours * 3_600_000);
  fs.utimesSync(file, at, at);
  return file;
}

describe('rough edges (issue #20, 4)', () => {
  it('removes temp files that killed writers left in the memory and session folders, and keeps fresh ones', async () => {
    fresh();
    server.enqueue({ content: [{ type: 'text', text: 'one' }] });
    const first = await engram(['-p', 'hello', '--output-format', 'json']);
    const { sessionId } = JSON.parse(first.stdout) as { sessionId: string };
    const memory = await autoMemoryDir(dataDir, workspace);
    const notes = path.join(projectDir(dataDir, workspace), sessionId, 'session-memory');
    const old = [
      tempFile(memory, 'MEMORY.md', 2),
      tempFile(path.join(memory, 'team'), 'x.md', 30),
      tempFile(notes, 'summary.md', 2),
    ];
    const recent = tempFile(memory, 'notes.md', 0);

    server.enqueue({ content: [{ type: 'text', text: 'two' }] });
    const run = await engram(['-p', 'again', '--resume', sessionId]);
    assert.equal(run.code, 0, run.stderr);
    for (const file of old) assert.equal(fs.existsSync(file), false, `${file} is removed`);
    assert.equal(fs.existsSync(recent), true, 'a temp file being written now is left alone');
  });

  it('leaves no empty transcript when the first line cannot be written, and hands back no session id', async () => {
    fresh();
    const sent = server.requests.length;
    const realOpen = fs.promises.open;
    // A full disk: the transcript opens, and nothing can be appended to it.
    mock.method(fs.promises, 'open', async (...args: Parameters<typeof fs.promises.open>) => {
      const handle = await realOpen.apply(fs.promises, args);
      if (
        !String(args[0]).endsWith('.jsonl') ||
        !String(args[0]).startsWith(dataDir) ||
        !String(args[1]).startsWith('a')
      )
        return handle;
      const full = (): Promise<never> =>
        Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      return new Proxy(handle, {
        get: (h, key) =>
          key === 'appendFile'
            ? full
            : ((Reflect.get(h, key) as unknown as (...a: unknown[]) => unknown)?.bind?.(h) ?? Reflect.get(h, key)),
      });
    });
    let run;
    try {
      run = await engram(['-p', 'hello', '--output-format', 'json']);
    } finally {
      mock.restoreAll();
    }
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Could not write the transcript .*ENOSPC/);
    const out = JSON.parse(run.stdout) as { sessionId: unknown; transcript: unknown };
    assert.deepEqual([out.sessionId, out.transcript], [null, null]);
    const dir = projectDir(dataDir, workspace);
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl')),
      [],
      'no empty transcript is left',
    );
    assert.equal(server.requests.length, sent, 'no model call after a prompt that could not be recorded');
  });

  it('lists an empty transcript a killed run left as empty (inspect) or not at all (the chat)', async () => {
    fresh();
    const file = sessionTranscriptPath(dataDir, workspace, 'killed');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    assert.match(
      (await engram(['inspect', '--root', dataDir])).stdout,
      /killed: empty \(a run that stopped before writing anything; nothing to resume\)/,
    );
    assert.deepEqual(await listSessions(path.dirname(file)), []);
  });

  it("refuses an output limit or a window beyond the model's, naming the flag and the limit", async () => {
    fresh();
    const sent = server.requests.length;
    const cases: Array<[string[], RegExp]> = [
      [['--max-tokens', '999999'], /--max-tokens: 999999 is above the maximum 128000/],
      [['--context-window', '1e12'], /--context-window: 1000000000000 is above the maximum 1000000/],
      [
        ['--model', 'claude-opus-4-1', '--max-tokens', '50000'],
        /--max-tokens: 50000 is more than claude-opus-4-1 can write in one answer \(32000\)/,
      ],
      [
        ['--model', 'claude-3-5-haiku-latest', '--context-window', '500000'],
        /--context-window: 500000 is more than claude-3-5-haiku-latest has \(200000 tokens\)/,
      ],
    ];
    for (const [flags, said] of cases) {
      const run = await engram(['-p', 'hi', ...flags]);
      assert.equal(run.code, 2, flags.join(' '));
      assert.match(run.stderr, said);
    }
    assert.equal(server.requests.length, sent, 'nothing was sent');
  });

  it('says a data folder that is a file is a file', async () => {
    fresh();
    fs.writeFileSync(dataDir, 'not a folder');
    const run = await engram(['-p', 'hi']);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `engram: Engram's data folder ${dataDir} is a file, not a folder. Move the file away, or set engram.dataDir (--data-dir, ENGRAM_DATA_DIR) to a folder.\n`,
    );
  });

  it('says a transcript that is a folder is a folder, on --resume and in inspect', async () => {
    fresh();
    const file = sessionTranscriptPath(dataDir, workspace, 'odd');
    fs.mkdirSync(file, { recursive: true });
    const run = await engram(['-p', 'hi', '--resume', 'odd']);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(`The transcript of session odd is not a file: ${file.replace(/[.\\]/g, '\\$&')} is a folder`),
    );
    const inspect = await engram(['inspect', '--root', dataDir]);
    assert.match(inspect.stdout, /Sessions: 1\n {4}odd: unreadable \(a folder, not a transcript file\)/);
  });
});
