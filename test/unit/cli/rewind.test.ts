// `engram rewind` as a user runs it (a real process; the session was made over the test server's HTTP):
// turns that Write, run `sed -i` and `rm` through Bash, and Write again, then a hand edit; --dry-run
// prints the plan and changes nothing, a run off a terminal applies it (the hand edit is a conflict left
// as it is) and prints the exact undo command, which puts everything back; clear errors for an unknown
// session, a turn out of range and a session another process is writing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { acquireWriterLock } from '../../../src/core/fs/writerLock';
import { runEngram } from '../support/cliProcess';
import { openTestSession } from '../support/engramSessions';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('all');

async function scriptedProject(): Promise<{
  home: string;
  ws: string;
  dataDir: string;
  id: string;
  transcript: string;
}> {
  const home = tempDir('engram-rewind-cli-');
  const ws = path.join(home, 'ws');
  const dataDir = path.join(home, 'data');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'b.txt'), 'bee\n');
  const session = await openTestSession(
    server.url,
    { cwd: ws, dataDir },
    {
      'sessionNotes.enabled': false,
      'memory.enabled': false,
    },
  );
  const steps: Array<[string, string, Record<string, unknown>]> = [
    ['write a', 'Write', { file_path: path.join(ws, 'a.txt'), content: 'one\n' }],
    ['edit a, remove b', 'Bash', { command: "sed -i 's/one/two/' a.txt && rm b.txt" }],
    ['write c', 'Write', { file_path: path.join(ws, 'c.txt'), content: 'sea\n' }],
  ];
  for (const [i, [prompt, name, input]] of steps.entries()) {
    server.enqueue(
      { content: [{ type: 'tool_use', id: `toolu_${i}`, name, input }] },
      { content: [{ type: 'text', text: `done ${i}` }] },
    );
    assert.equal((await session.runTurn(prompt)).reason, 'end_turn');
  }
  await session.finish();
  fs.writeFileSync(path.join(ws, 'c.txt'), 'my own\n');
  return { home, ws, dataDir, id: session.sessionId, transcript: session.transcriptPath };
}

const files = (ws: string): Record<string, string> =>
  Object.fromEntries(
    fs
      .readdirSync(ws)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(ws, f), 'utf8')]),
  );

describe('engram rewind', () => {
  it('prints the plan, applies it off a terminal with the hand edit left as a conflict, and undoes it', async () => {
    const { home, ws, dataDir, id, transcript } = await scriptedProject();
    const env = { ENGRAM_DATA_DIR: dataDir };
    const before = files(ws);

    const dry = await runEngram(['rewind', id, '--to-turn', '1', '--cwd', ws, '--dry-run'], { home, env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^Rewind session \S+ to right after turn 1 \("write a"\):\n {2}Code: 3 files:\n/);
    assert.match(dry.stdout, /^ {4}restore {2}a\.txt$/m);
    assert.match(dry.stdout, /^ {4}recreate b\.txt$/m);
    assert.match(dry.stdout, /^ {4}delete {3}c\.txt {2}CONFLICT: .+ \(left as it is; --force restores it\)$/m);
    assert.match(
      dry.stdout,
      /Conversation: 2 later turns dropped \(kept in the transcript as a side branch\)\.\nDry run: nothing was changed\.\n$/,
    );
    assert.deepEqual(files(ws), before);

    const run = await runEngram(['rewind', id, '--to-turn', '1', '--cwd', ws], { home, env });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(files(ws), { 'a.txt': 'one\n', 'b.txt': 'bee\n', 'c.txt': 'my own\n' });
    const undo = /^Undo: (.+)$/m.exec(run.stdout)?.[1];
    assert.ok(undo, run.stdout);
    assert.match(
      run.stdout,
      /Rewound the code \(.*\(c\.txt\)\) and the conversation \(2 later turns dropped\) to right after turn 1\./,
    );
    assert.match(undo, new RegExp(` rewind ${id} --undo code:\\S+\\+conversation:\\S+ --cwd ${ws}$`));
    assert.ok(fs.readFileSync(transcript, 'utf8').includes('write c'), 'the dropped turns stay in the file');

    const undoArgs = undo.slice(undo.indexOf(' rewind ') + 1).split(' ');
    const back = await runEngram([...undoArgs, '--json'], { home, env });
    assert.equal(back.code, 0, back.stderr);
    const out = JSON.parse(back.stdout) as { outcome: { summary: string; toTurn: number } };
    assert.equal(out.outcome.toTurn, 3);
    assert.match(out.outcome.summary, /^Undid the rewind: /);
    assert.deepEqual(files(ws), { 'a.txt': 'two\n', 'c.txt': 'my own\n' });
  });

  it('says plainly when the session is unknown, the turn is out of range, or another process writes the session', async () => {
    const { home, ws, dataDir, id, transcript } = await scriptedProject();
    const env = { ENGRAM_DATA_DIR: dataDir };
    const unknown = await runEngram(['rewind', 'nope-123', '--to-turn', '1', '--cwd', ws], { home, env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^engram: No session nope-123 for this project \(looked for .+\)\.\n$/);

    const far = await runEngram(['rewind', id, '--to-turn', '9', '--cwd', ws], { home, env });
    assert.equal(far.code, 1);
    assert.match(far.stderr, /There is no turn 9 in this session: it has 3 turns/);

    const usage = await runEngram(['rewind', id, '--cwd', ws], { home, env });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Say where to go: --to-turn N/);

    const lock = await acquireWriterLock(transcript, { waitMs: 0 });
    try {
      const held = await runEngram(['rewind', id, '--to-turn', '2', '--conversation', '--cwd', ws], { home, env });
      assert.equal(held.code, 1);
      assert.match(
        held.stderr,
        /is writing session \S+ \(open in another window or run\): its conversation cannot be rewound now/,
      );
      const code = await runEngram(['rewind', id, '--to-turn', '2', '--code', '--cwd', ws, '--json'], { home, env });
      assert.equal(code.code, 0, code.stderr);
      const done = (JSON.parse(code.stdout) as { outcome: { code: { written: string[]; conflicts: string[] } } })
        .outcome;
      assert.deepEqual([done.code.written, done.code.conflicts], [[], ['c.txt']], 'code alone needs no lock');
    } finally {
      await lock.release();
    }

    // Without git on PATH the checkpoints are off: --code says why; the conversation alone still works.
    const bin = tempDir('engram-rewind-bin-');
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    const noGit = { ...env, PATH: bin };
    const off = await runEngram(['rewind', id, '--to-turn', '2', '--code', '--cwd', ws], { home, env: noGit });
    assert.equal(off.code, 1);
    assert.equal(
      off.stderr,
      'engram: The code cannot be rewound: Checkpoints need git, which was not found on PATH.\n',
    );
    const talk = await runEngram(['rewind', id, '--to-turn', '2', '--cwd', ws], { home, env: noGit });
    assert.equal(talk.code, 0, talk.stderr);
    assert.match(talk.stdout, /Code: not rewound: Checkpoints need git/);
    assert.match(talk.stdout, /Rewound the conversation \(1 later turn dropped\) to right after turn 2\./);
  });

  it('rewinds turns that engram -p ran (each its own process, --resume), code and conversation', async () => {
    const home = tempDir('engram-rewind-p-');
    const ws = path.join(home, 'ws');
    const dataDir = path.join(home, 'data');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'b.txt'), 'bee\n');
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k', ENGRAM_DATA_DIR: dataDir };
    const steps: Array<[string, string, Record<string, unknown>]> = [
      ['write a', 'Write', { file_path: path.join(ws, 'a.txt'), content: 'one\n' }],
      ['edit a, remove b', 'Bash', { command: "sed -i 's/one/two/' a.txt && rm b.txt" }],
    ];
    let sessionId: string | undefined;
    for (const [i, [prompt, name, input]] of steps.entries()) {
      server.enqueue(
        { content: [{ type: 'tool_use', id: `toolu_p${i}`, name, input }] },
        { content: [{ type: 'text', text: `done ${i}` }] },
      );
      const resume = sessionId ? ['--resume', sessionId] : [];
      const args = ['-p', prompt, ...resume, '--allowed-tools', 'Write,Bash', '--output-format', 'json'];
      const run = await runEngram([...args, '--cwd', ws, '--no-memory'], { home, env });
      assert.equal(run.code, 0, run.stderr);
      sessionId = (JSON.parse(run.stdout) as { sessionId: string }).sessionId;
    }
    assert.deepEqual(files(ws), { 'a.txt': 'two\n' });
    const id = sessionId as string;
    const run = await runEngram(['rewind', id, '--to-turn', '1', '--cwd', ws, '--yes', '--json'], { home, env });
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { outcome: { conversation: { droppedTurns: number } } };
    assert.deepEqual(out.outcome.conversation, { droppedTurns: 1 });
    assert.deepEqual(files(ws), { 'a.txt': 'one\n', 'b.txt': 'bee\n' });
    const back = await runEngram(['rewind', id, '--to-turn', '0', '--cwd', ws, '--dry-run'], { home, env });
    assert.match(back.stdout, /Code: 1 file:\n {4}delete {3}a\.txt\n[\s\S]*Conversation: 1 later turn dropped/);
  });
});
