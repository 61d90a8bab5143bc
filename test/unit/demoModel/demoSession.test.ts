// The offline demo model driving the real engine, as the Chat view opens it: the demo only answers
// with text and tool calls, and the session's tools, permission prompt, memory, notes updater,
// extraction and compaction do the rest. Each test walks one feature a newcomer tries.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { PermissionAnswer, PermissionPrompt } from '../../../src/core/ports';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import type { EngramSession } from '../../../src/core/session/engramSession';
import { DEFAULT_TEMPLATE, isTemplateOnly, parseNotes } from '../../../src/core/memory/sessionNotes/template';
import { type RawSettings } from '../../../src/core/settings/engramSettings';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer({ demo: true });
const tempDir = useTempDirs('each');

const README =
  '# Sample project\n\nA small sample workspace for trying Engram.\n\n## Usage\n\nRun `npm start`.\n\n## Notes\n\nNothing yet.\n';

interface Opened {
  session: EngramSession;
  cwd: string;
  asked: string[];
}

async function open(settings: RawSettings = {}, answer: PermissionAnswer = 'allowOnce'): Promise<Opened> {
  const root = tempDir('engram-demo-');
  const cwd = path.join(root, 'ws');
  fs.mkdirSync(cwd);
  fs.writeFileSync(path.join(cwd, 'README.md'), README);
  const asked: string[] = [];
  const prompt: PermissionPrompt = { ask: async (req) => (asked.push(req.summary), answer) };
  const session = await openEngramSession(
    {
      dataDir: path.join(root, 'data'),
      cwd,
      client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
      trusted: true,
      permissionPrompt: prompt,
      version: '0.0.0-test',
      entrypoint: 'vscode',
      awaitNotesUpdates: true,
    },
    new SettingsStore({ 'sessionNotes.enabled': false, 'memory.extraction.enabled': false, ...settings }),
  );
  return { session, cwd, asked };
}

/** The tool results the model was sent in this session's requests, in order. */
function toolErrors(session: EngramSession): string[] {
  return session.agent.messages
    .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
    .filter((b) => b.type === 'tool_result' && b.is_error === true)
    .map((b) => (b.type === 'tool_result' ? String(b.content) : ''));
}

describe('the offline demo model on the real engine', () => {
  it('remembers a preference (topic file + MEMORY.md line, no prompt) and says what it remembers', async () => {
    const { session, asked } = await open();
    const saved = await session.runTurn('remember that I prefer tabs over spaces');
    assert.equal(saved.reason, 'end_turn');
    assert.match(saved.text, /^Offline demo model: saved "I prefer tabs over spaces" as a \*\*feedback\*\* memory/);
    const dir = session.memoryDir!;
    const topic = fs.readFileSync(path.join(dir, 'feedback_prefer_tabs_spaces.md'), 'utf8');
    assert.match(
      topic,
      /^---\nname: Prefers tabs over spaces\ndescription: The user prefers tabs over spaces\ntype: feedback\n/,
    );
    assert.match(topic, /\*\*Why:\*\*/);
    assert.match(
      fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'),
      /^- \[Prefers tabs over spaces\]\(feedback_prefer_tabs_spaces\.md\) — The user prefers tabs over spaces\n$/,
    );
    assert.deepEqual(asked, [], 'memory writes need no permission prompt');
    const recalled = await session.runTurn('what do you remember?');
    assert.match(recalled.text, /Prefers tabs over spaces/);
    // A second memory reads the index first and keeps the line already there.
    await session.runTurn('remember: the API docs live at https://example.com/api');
    const index = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').split('\n').filter(Boolean);
    assert.equal(index.length, 2, index.join('\n'));
    assert.match(index[1], /\(reference_api_docs_live\.md\)/);
    assert.deepEqual(toolErrors(session), []);
    await session.finish();
  });

  it('recognises what /remember sends instead of echoing it', async () => {
    const { session } = await open();
    const result = await session.remember('I prefer small commits');
    assert.match(result.text, /saved "I prefer small commits" as a \*\*feedback\*\* memory/);
    assert.ok(fs.existsSync(path.join(session.memoryDir!, 'feedback_prefer_small_commits.md')));
    await session.finish();
  });

  it('edits a file only after the permission prompt, and says so when it is declined', async () => {
    const allowed = await open();
    const done = await allowed.session.runTurn('edit README.md: replace "Nothing yet." with "Try the tour."');
    assert.deepEqual(allowed.asked, ['Edit README.md']);
    assert.match(fs.readFileSync(path.join(allowed.cwd, 'README.md'), 'utf8'), /Try the tour\./);
    assert.match(done.text, /done: Edited README\.md/);
    await allowed.session.finish();

    const denied = await open({}, 'deny');
    const no = await denied.session.runTurn('create notes.txt with hello');
    assert.deepEqual(denied.asked, ['Write notes.txt']);
    assert.equal(fs.existsSync(path.join(denied.cwd, 'notes.txt')), false);
    assert.match(no.text, /you declined the permission prompt/);
    await denied.session.finish();
  });

  it('runs a command after the prompt and reports its exit code and output', async () => {
    const { session, asked } = await open();
    const result = await session.runTurn('run echo hello-demo && exit 3');
    assert.equal(asked.length, 1);
    assert.match(result.text, /failed with exit code 3/);
    assert.match(result.text, /hello-demo/);
    await session.finish();
  });

  it('fills the session notes from the conversation, not the template', async () => {
    // Written as the first response arrives (the Read still running), then again at the next turn's
    // answer: the README's text is more than the growth that update waits for.
    const { session, cwd } = await open({
      'sessionNotes.enabled': true,
      'sessionNotes.initTokens': 1_000,
      'sessionNotes.updateGrowthTokens': 500,
      'sessionNotes.updateGrowthPercent': 0,
      'sessionNotes.updateToolCalls': 1,
    });
    fs.appendFileSync(
      path.join(cwd, 'README.md'),
      `\n## Details\n\n${'Engram keeps session notes while you work. '.repeat(100)}\n`,
    );
    await session.runTurn('read README.md');
    await session.runTurn('run false');
    assert.equal(session.notes!.state.updates, 2);
    const notes = fs.readFileSync(session.notes!.paths.summary, 'utf8');
    assert.equal(isTemplateOnly(notes, DEFAULT_TEMPLATE), false, notes);
    const sections = Object.fromEntries(parseNotes(notes).sections.map((s) => [s.heading, s.body]));
    assert.match(sections['Session Title'], /read README\.md/);
    assert.match(sections['Current State'], /Latest request: "run false"/);
    assert.match(sections['Task specification'], /"read README\.md"\n- "run false"/);
    assert.match(sections.Workflow, /`false` \(exit 1\)/);
    assert.match(sections['Errors & Corrections'], /Bash `false`: /);
    assert.match(sections['Files and Functions'], /README\.md: read/);
    assert.match(sections.Worklog, /Read README\.md/);
    // The template stays: every heading and its guide line.
    for (const line of DEFAULT_TEMPLATE.split('\n').filter(Boolean)) assert.ok(notes.includes(line), line);
    await session.finish();
  });

  it('background extraction saves a stated preference, and a run that saves nothing is not a timeline entry', async () => {
    const { session } = await open({ 'memory.extraction.enabled': true });
    const noted = await session.runTurn('I prefer short answers');
    assert.match(noted.text, /background memory agent/);
    await session.memory!.idle();
    const file = path.join(session.memoryDir!, 'feedback_prefer_short_answers.md');
    assert.match(fs.readFileSync(file, 'utf8'), /type: feedback/);
    assert.match(
      fs.readFileSync(path.join(session.memoryDir!, 'MEMORY.md'), 'utf8'),
      /feedback_prefer_short_answers\.md/,
    );
    const entries = (): string[] =>
      session.timeline.filter((t) => t.kind === 'memory').map((t) => (t.kind === 'memory' ? t.event.type : ''));
    assert.deepEqual(entries(), ['memorySaved', 'extractionDone']);

    await session.runTurn('read README.md');
    await session.memory!.idle();
    assert.deepEqual(entries(), ['memorySaved', 'extractionDone'], 'nothing saved: no new entry');
    await session.finish();
  });

  it('after a full compaction the next turn reads the path it was given, not one out of the summary', async () => {
    const { session } = await open();
    const first = server.requests.length;
    await session.runTurn('read README.md');
    const compacted = await session.compactNow('full');
    assert.equal(compacted.ok, true, compacted.reason);
    const hello = await session.runTurn('hello');
    assert.match(hello.text, /^Offline demo model: I am a scripted stand-in/);
    const again = await session.runTurn('read README.md');
    assert.match(again.text, /`README\.md` has 11 lines\. Its first heading is \*\*Sample project\*\*/);
    assert.deepEqual(toolErrors(session), []);
    const reads = server.requests
      .slice(first)
      .flatMap((r) => r.body.messages ?? [])
      .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
      .filter((b) => b.type === 'tool_use')
      .map((b) => (b.type === 'tool_use' ? (b.input as { file_path?: string }).file_path : ''));
    assert.ok(
      reads.every((p) => p === 'README.md'),
      reads.join(', '),
    );
    await session.finish();
  });
});
