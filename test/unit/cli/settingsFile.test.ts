// `engram -p --settings FILE`: a JSON object of engram.* settings is the base the flags override; a
// file or a key or value the rules reject is a usage error (exit 2) that says what is wrong.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { readSettingsFile, settingsFromFlags } from '../../../src/cli/cliSettings';
import { runCli } from '../../../src/cli/dispatcher';
import { UsageError } from '../../../src/cli/args';
import type { MessagesRequestBody } from '../../../src/testServer/anthropicTestServer';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const NOTES_MARKER = '<engram-session-notes-update>';
/** The notes updater's fork gets a plain answer; the main conversation answers "done". */
const server = useTestServer({
  responder: (body: MessagesRequestBody) => ({
    content: [{ type: 'text', text: JSON.stringify(body.messages).includes(NOTES_MARKER) ? 'Notes updated.' : 'done' }],
  }),
});
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;

before(() => {
  root = tempDir('engram-settings-');
  workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
});

function settingsFile(name: string, text: string): string {
  const file = path.join(root, name);
  fs.writeFileSync(file, text);
  return file;
}

async function engram(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: {
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: server.url,
      ENGRAM_DATA_DIR: path.join(root, 'env-data'),
      ...env,
    },
    cwd: workspace,
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

describe('--settings FILE', () => {
  it('resolves the file as the base of the flags: every key reaches the settings, a flag beats the file', async () => {
    const file = settingsFile(
      'cadence.json',
      JSON.stringify({
        'engram.compaction.sendRepeatsOnce': false,
        'engram.compaction.trimSupersededFirst': false,
        'engram.sessionNotes.updateGrowthPercent': 0,
        'sessionNotes.updateGrowthTokens': 5000,
        'engram.sessionNotes.updateToolCalls': 3,
        'engram.contextWindow': 100_000,
        'engram.compaction.microcompactPercent': 50,
      }),
    );
    const base = await readSettingsFile(file);
    const s = settingsFromFlags({ maxOutputTokens: { flag: '--max-tokens', value: undefined } }, base);
    assert.equal(s.compaction.sendRepeatsOnce, false);
    assert.equal(s.compaction.trimSupersededFirst, false);
    assert.equal(s.compaction.microcompactPercent, 50);
    assert.deepEqual(
      [s.sessionNotes.updateGrowthPercent, s.sessionNotes.updateGrowthTokens, s.sessionNotes.updateToolCalls],
      [0, 5000, 3],
      'with or without the engram. prefix',
    );
    assert.equal(s.contextWindow, 100_000);
    assert.equal(
      settingsFromFlags({ contextWindow: { flag: '--context-window', value: '150000' } }, base).contextWindow,
      150_000,
    );
  });

  it('reaches the run: model, output limit, data folder and the notes thresholds come from the file', async () => {
    const dataDir = path.join(root, 'file-data');
    const file = settingsFile(
      'run.json',
      JSON.stringify({
        'engram.model': 'claude-from-file',
        'engram.maxOutputTokens': 1234,
        'engram.dataDir': dataDir,
        // Low enough that the first response's context starts the notes.
        'engram.sessionNotes.initTokens': 1000,
      }),
    );
    const first = server.requests.length;
    const run = await engram(['-p', 'hello', '--settings', file, '--output-format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const sent = server.requests.slice(first);
    assert.equal(sent[0].body.model, 'claude-from-file');
    assert.equal(sent[0].body.max_tokens, 1234);
    assert.ok(
      sent.some((r) => JSON.stringify(r.body.messages).includes(NOTES_MARKER)),
      "the notes updater ran at the file's init threshold",
    );
    assert.ok(
      (JSON.parse(run.stdout) as { transcript: string }).transcript.startsWith(dataDir),
      'engram.dataDir beats ENGRAM_DATA_DIR',
    );

    const again = server.requests.length;
    const flagged = await engram([
      '-p',
      'hello',
      '--settings',
      file,
      '--model',
      'claude-from-flag',
      '--data-dir',
      path.join(root, 'flag-data'),
    ]);
    assert.equal(flagged.code, 0, flagged.stderr);
    assert.equal(server.requests[again].body.model, 'claude-from-flag');
  });

  it('without the file the notes wait for their default threshold', async () => {
    const first = server.requests.length;
    const run = await engram(['-p', 'hello']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      server.requests.slice(first).filter((r) => JSON.stringify(r.body.messages).includes(NOTES_MARKER)).length,
      0,
    );
  });

  it('refuses, with exit 2 and words, a missing file, no JSON, no object, an unknown key and rejected values', async () => {
    const cases: Array<[string, RegExp]> = [
      [path.join(root, 'missing.json'), /--settings .*missing\.json: no such file/],
      [root, /is a folder, not a file/],
      [settingsFile('broken.json', '{"engram.model": '), /broken\.json: not JSON/],
      [settingsFile('list.json', '["engram.model"]'), /must hold a JSON object of settings/],
      [settingsFile('null.json', 'null'), /must hold a JSON object of settings/],
      [
        settingsFile('unknown.json', '{"engram.compaction.sendRepeatOnce": false}'),
        /unknown setting "engram\.compaction\.sendRepeatOnce"; it must be one of the engram\.\* settings: engram\.model, .*engram\.compaction\.sendRepeatsOnce/,
      ],
      [settingsFile('twice.json', '{"engram.model": "a", "model": "b"}'), /engram\.model is set twice/],
      [
        settingsFile('range.json', '{"engram.contextWindow": 0}'),
        /range\.json: engram\.contextWindow: 0 is below the minimum 8000$/m,
      ],
      [
        settingsFile('type.json', '{"engram.compaction.sendRepeatsOnce": "no"}'),
        /engram\.compaction\.sendRepeatsOnce: expected true or false, got "no"$/m,
      ],
      [
        settingsFile(
          'marks.json',
          '{"engram.compaction.microcompactPercent": 90, "engram.compaction.sessionMemoryPercent": 70}',
        ),
        /engram\.compaction marks 90 \/ 70 \/ 100 are not in rising order$/m,
      ],
    ];
    const before = server.requests.length;
    for (const [file, expected] of cases) {
      const run = await engram(['-p', 'x', '--settings', file]);
      assert.equal(run.code, 2, `${file} -> ${run.stderr}`);
      assert.match(run.stderr, expected);
    }
    assert.equal(server.requests.length, before, 'no model call for a usage error');
  });

  it('blames a flag for its own value and the file only for keys it set', async () => {
    const file = settingsFile('window.json', '{"engram.contextWindow": 10000}');
    const base = await readSettingsFile(file);
    // The default output limit is capped to the small window, as VS Code does: nobody set it.
    assert.equal(settingsFromFlags({}, base).maxOutputTokens, 5000);
    assert.throws(
      () => settingsFromFlags({ maxOutputTokens: { flag: '--max-tokens', value: '20000' } }, base),
      (e: unknown) =>
        e instanceof UsageError &&
        /^--max-tokens: engram\.maxOutputTokens \(20000\) does not fit the context window \(10000\)$/.test(e.message),
    );
    // A flag's valid value fixes nothing in the file: the file's own bad value is still refused.
    const bad = await readSettingsFile(
      settingsFile('keep.json', '{"engram.compaction.keepMinTokens": 50000, "engram.compaction.keepMaxTokens": 20000}'),
    );
    assert.throws(
      () => settingsFromFlags({ contextWindow: { flag: '--context-window', value: '100000' } }, bad),
      (e: unknown) =>
        e instanceof UsageError &&
        /keep\.json: engram\.compaction\.keepMaxTokens \(20000\) is below keepMinTokens \(50000\)$/.test(e.message),
    );
  });

  it('is in --help', async () => {
    const run = await engram(['print', '--help']);
    assert.match(run.stdout, /--settings FILE\s+Start from a JSON object of engram\.\* settings/);
  });
});
