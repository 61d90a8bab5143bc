// The CLI against the offline demo model, as a user tries it with `node dist/testServer.js` running and
// ANTHROPIC_BASE_URL set to it: the real `engram` process, the real server over HTTP, real files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { projectDir } from '../../../src/core/conversation/projectKey';
import { DEFAULT_TEMPLATE, isTemplateOnly, parseNotes } from '../../../src/core/memory/sessionNotes/template';
import { runEngram, type CliRun } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer({ demo: true });
const tempDir = useTempDirs('each');

interface Project {
  root: string;
  cwd: string;
  dataDir: string;
  memoryDir: string;
}

function project(readme = '# Sample\n\nA sample workspace.\n\n## Usage\n\nRun it.\n'): Project {
  const root = tempDir('engram-demo-cli-');
  const cwd = path.join(root, 'ws');
  fs.mkdirSync(cwd);
  fs.writeFileSync(path.join(cwd, 'README.md'), readme);
  const dataDir = path.join(root, 'data');
  return { root, cwd, dataDir, memoryDir: path.join(projectDir(dataDir, cwd), 'memory') };
}

interface JsonRun extends CliRun {
  json: { result: string; sessionId: string; transcript: string };
}

async function engram(p: Project, args: string[]): Promise<JsonRun> {
  const run = await runEngram([...args, '--cwd', p.cwd, '--output-format', 'json'], {
    home: p.root,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'any-key', ENGRAM_DATA_DIR: p.dataDir },
  });
  assert.equal(run.code, 0, run.stderr || run.stdout);
  return { ...run, json: JSON.parse(run.stdout) as JsonRun['json'] };
}

const topicFiles = (p: Project): string[] =>
  fs.existsSync(p.memoryDir) ? fs.readdirSync(p.memoryDir).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md') : [];

describe('engram -p against the offline demo model', () => {
  it('"remember that ..." writes a typed topic file and its MEMORY.md line; "what do you remember?" answers with it', async () => {
    const p = project();
    const saved = await engram(p, ['-p', 'remember that I prefer tabs over spaces']);
    assert.match(saved.json.result, /saved "I prefer tabs over spaces" as a \*\*feedback\*\* memory/);
    assert.deepEqual(topicFiles(p), ['feedback_prefer_tabs_spaces.md']);
    const topic = fs.readFileSync(path.join(p.memoryDir, 'feedback_prefer_tabs_spaces.md'), 'utf8');
    assert.match(topic, /\ntype: feedback\n/);
    assert.match(topic, new RegExp(`originSessionId: ${saved.json.sessionId}`));
    assert.match(
      fs.readFileSync(path.join(p.memoryDir, 'MEMORY.md'), 'utf8'),
      /^- \[Prefers tabs over spaces\]\(feedback_prefer_tabs_spaces\.md\)/,
    );
    const recalled = await engram(p, ['-p', 'what do you remember?', '--resume', saved.json.sessionId]);
    assert.match(recalled.json.result, /\*\*Prefers tabs over spaces\*\* — The user prefers tabs over spaces/);
  });

  it('reads a file and answers from what it read', async () => {
    const p = project();
    const run = await engram(p, ['-p', 'read README.md']);
    assert.equal(
      run.json.result,
      'Offline demo model: `README.md` has 7 lines. Its first heading is **Sample**. Sections: Usage. It opens with:\n\n> A sample workspace.',
    );
  });

  it('fills the session notes with what happened once the context is big enough', async () => {
    const p = project(`# Big\n\n${'Engram keeps notes of long sessions.\n'.repeat(1_200)}\n`);
    const run = await engram(p, ['-p', 'read README.md']);
    const file = path.join(projectDir(p.dataDir, p.cwd), run.json.sessionId, 'session-memory', 'summary.md');
    const notes = fs.readFileSync(file, 'utf8');
    assert.equal(isTemplateOnly(notes, DEFAULT_TEMPLATE), false, notes);
    const s = Object.fromEntries(parseNotes(notes).sections.map((x) => [x.heading, x.body]));
    assert.match(s['Task specification'], /"read README\.md"/);
    assert.match(s['Files and Functions'], /README\.md/);
  });

  it('--extract-memories saves a stated preference in the background, and nothing when there is nothing to save', async () => {
    const p = project();
    await engram(p, ['-p', 'I prefer short answers', '--extract-memories']);
    assert.deepEqual(topicFiles(p), ['feedback_prefer_short_answers.md']);
    assert.match(fs.readFileSync(path.join(p.memoryDir, 'MEMORY.md'), 'utf8'), /feedback_prefer_short_answers\.md/);
    const quiet = project();
    await engram(quiet, ['-p', 'read README.md', '--extract-memories']);
    assert.deepEqual(topicFiles(quiet), []);
  });

  it('after `engram compact --stage full --write`, the resumed session goes on without tripping over the summary', async () => {
    const p = project();
    const first = await engram(p, ['-p', 'read README.md']);
    const compact = await runEngram(['compact', first.json.transcript, '--stage', 'full', '--write'], {
      home: p.root,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'any-key', ENGRAM_DATA_DIR: p.dataDir },
    });
    assert.equal(compact.code, 0, compact.stderr);
    const start = server.requests.length;
    const hello = await engram(p, ['-p', 'hello', '--resume', first.json.sessionId]);
    assert.match(hello.json.result, /^Offline demo model: I am a scripted stand-in/);
    const again = await engram(p, ['-p', 'read README.md', '--resume', first.json.sessionId]);
    assert.match(again.json.result, /`README\.md` has 7 lines/);
    const sent = JSON.stringify(server.requests.slice(start).map((r) => r.body.messages));
    assert.match(sent, /This session continues a conversation/, 'the resumed requests start from the summary');
    assert.doesNotMatch(sent, /"is_error":true/);
  });
});
