// `engram mcp` as a real process driven by the official SDK client, over a project whose memory is the
// recall evaluation's webapp folder: the tools and resources it lists, search answering what the chat's
// recall attaches (with the text and the words), remember through the writer (provenance with the
// client's name, the index line, secrets refused, the review queue), reads confined to the memory
// folder, session notes, and bad input answered as tool errors while the server goes on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildReviewQueueView } from '../../../src/core/inspection/pendingView';
import { autoMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { recallForPrompt } from '../../../src/core/memory/autoMemory/recall';
import { parseTopicFile } from '../../../src/core/memory/autoMemory/topicFile';
import { sessionNotesPaths } from '../../../src/core/memory/sessionNotes/paths';
import { projectDir } from '../../../src/core/conversation/projectKey';
import { EVAL_DIR } from '../../bench/recallEval';
import { PLANTED_SECRETS } from '../memory/team/plantedSecrets';
import { startEngramMcp, type EngramMcp } from '../support/engramMcp';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('all');

interface Project {
  home: string;
  cwd: string;
  dataDir: string;
  memoryDir: string;
}

/** A project whose private memory is a copy of the evaluation's webapp folder, two sessions with notes and a newer one without. */
async function project(): Promise<Project> {
  const home = tempDir('engram-mcp-home-');
  const cwd = path.join(home, 'webapp');
  fs.mkdirSync(cwd);
  const dataDir = path.join(home, 'data');
  const memoryDir = await autoMemoryDir(dataDir, cwd);
  fs.cpSync(path.join(EVAL_DIR, 'webapp'), memoryDir, { recursive: true });
  const sessions = projectDir(dataDir, cwd);
  for (const [id, when, notes] of [
    ['older-session', 1_000, '# Older\n\nFixed the login redirect.\n'],
    ['newer-session', 2_000, '# Newer\n\n## Current State\nMigrating the cache to Redis.\n'],
    ['just-started', 3_000, undefined],
  ] as const) {
    fs.writeFileSync(path.join(sessions, `${id}.jsonl`), '');
    fs.utimesSync(path.join(sessions, `${id}.jsonl`), when, when);
    if (notes === undefined) continue;
    const p = sessionNotesPaths(dataDir, cwd, id).summary;
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, notes);
  }
  return { home, cwd, dataDir, memoryDir };
}

function start(p: Project, extra: string[] = [], clientName?: string): Promise<EngramMcp> {
  return startEngramMcp({
    home: p.home,
    args: ['--cwd', p.cwd, ...extra],
    env: { ENGRAM_DATA_DIR: p.dataDir },
    ...(clientName ? { clientName } : {}),
  });
}

describe('engram mcp, driven by the SDK client', () => {
  let p: Project;
  let mcp: EngramMcp;
  before(async () => {
    p = await project();
    mcp = await start(p);
  });
  after(() => mcp?.close());

  it('lists its five tools, read-only ones marked, and the memory files as resources', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([...byName.keys()].sort(), [
      'list_memories',
      'read_memory',
      'read_session_notes',
      'remember',
      'search_memory',
    ]);
    for (const name of ['search_memory', 'list_memories', 'read_memory', 'read_session_notes'])
      assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, name);
    assert.equal(byName.get('remember')?.annotations?.readOnlyHint, false);
    assert.deepEqual(byName.get('search_memory')?.inputSchema.required, ['query']);
    const { resources } = await mcp.client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('engram-memory:///MEMORY.md'));
    assert.ok(uris.includes('engram-memory:///project_deploy.md'));
    const read = await mcp.client.readResource({ uri: 'engram-memory:///project_deploy.md' });
    const first = read.contents[0];
    assert.ok('text' in first && /Fly\.io/.test(first.text));
  });

  it('search answers with the memories the chat recall attaches, their text and the words they matched', async () => {
    const query = 'How do I reset the database between my test suites?';
    const expected = await recallForPrompt(p.memoryDir, query, []);
    assert.ok(expected.files.length > 0, 'the fixture question recalls something');
    const r = await mcp.call('search_memory', { query });
    assert.equal(r.isError, undefined);
    const matches = (
      r.structuredContent as { matches: Array<{ file: string; text: string; matchedWords: string[]; why: string }> }
    ).matches;
    assert.deepEqual(
      matches.map((m) => m.file),
      expected.files.map((f) => f.file),
    );
    const top = matches[0];
    assert.equal(top.file, 'feedback_tests_real_db.md');
    const body = parseTopicFile(fs.readFileSync(path.join(p.memoryDir, top.file))) as { body: string };
    assert.equal(top.text, body.body.trim());
    assert.ok(top.matchedWords.length > 0);
    assert.match(top.why, /Matched the words? "/);
    // Found by another agent counts as a use, as a recall into a chat turn does.
    const usage = JSON.parse(fs.readFileSync(path.join(p.memoryDir, '.usage.json'), 'utf8')) as {
      entries: Record<string, { recalls: number }>;
    };
    assert.equal(usage.entries[top.file]?.recalls, 1);
    assert.match(r.text, /feedback_tests_real_db\.md/);
    const none = await mcp.call('search_memory', { query: 'What is the capital of Mongolia?' });
    assert.deepEqual((none.structuredContent as { matches: unknown[] }).matches, []);
    assert.match(none.text, /No memory bears clearly/);
  });

  it('remember writes a topic file with its index line and the client as provenance; search finds it', async () => {
    const r = await mcp.call('remember', {
      text: 'Feature flags live in LaunchDarkly; the staging project key is read from FLAGS_ENV.\nWhy: one source.',
      type: 'reference',
      title: 'Feature flags in LaunchDarkly',
    });
    assert.equal(r.isError, undefined, r.text);
    const { file, status } = r.structuredContent as { file: string; status: string };
    assert.equal(status, 'saved');
    assert.equal(file, 'reference_feature_flags_in_launchdarkly.md');
    const saved = parseTopicFile(fs.readFileSync(path.join(p.memoryDir, file)));
    assert.ok(!saved.binary);
    assert.equal(saved.data.originClient, 'claude-code');
    assert.equal(saved.data.originVia, 'mcp');
    assert.equal(saved.type, 'reference');
    assert.equal(saved.data.originSessionId, undefined);
    const index = fs.readFileSync(path.join(p.memoryDir, 'MEMORY.md'), 'utf8');
    assert.match(
      index,
      /- \[Feature flags in LaunchDarkly\]\(reference_feature_flags_in_launchdarkly\.md\) — Feature flags/,
    );
    const found = await mcp.call('search_memory', { query: 'where are the LaunchDarkly feature flags configured?' });
    const files = (found.structuredContent as { matches: Array<{ file: string }> }).matches.map((m) => m.file);
    assert.ok(files.includes(file), files.join(', '));
    const listed = await mcp.call('list_memories');
    const entry = (
      listed.structuredContent as { memories: Array<{ file: string; scope: string; type: string }> }
    ).memories.find((m) => m.file === file);
    assert.deepEqual(entry && { scope: entry.scope, type: entry.type }, { scope: 'private', type: 'reference' });
  });

  it('refuses text holding a secret, naming the rule and line, and writes nothing', async () => {
    const before = fs.readdirSync(p.memoryDir).sort();
    const r = await mcp.call('remember', {
      text: `The deploy token for CI:
${PLANTED_SECRETS.github}`,
    });
    assert.equal(r.isError, true);
    assert.match(r.text, /Not saved: the text holds a secret \(.*rule .*line \d\)/);
    assert.ok(!r.text.includes(PLANTED_SECRETS.github), 'the refusal does not repeat the secret');
    assert.deepEqual(fs.readdirSync(p.memoryDir).sort(), before);
  });

  it('reads MEMORY.md and topic files, and refuses paths out of the memory folder with a reason', async () => {
    assert.match(
      (await mcp.call('read_memory', { file: 'MEMORY.md' })).text,
      /\[Deploy process\]\(project_deploy\.md\)/,
    );
    assert.match((await mcp.call('read_memory', { file: 'project_deploy.md' })).text, /^---\n/);
    fs.writeFileSync(path.join(p.home, 'outside.md'), 'not memory');
    fs.symlinkSync(path.join(p.home, 'outside.md'), path.join(p.memoryDir, 'linked.md'));
    for (const [file, reason] of [
      ['../outside.md', /must not contain "\.\."/],
      [path.join(p.home, 'outside.md'), /relative to the memory folder/],
      ['linked.md', /outside the memory folder/],
      ['nope.md', /No memory file nope\.md/],
      ['.pending/x.md', /hidden files/],
      ['team/deploy.md', /team memory is off/],
    ] as const) {
      const r = await mcp.call('read_memory', { file });
      assert.equal(r.isError, true, file);
      assert.match(r.text, reason, file);
      assert.ok(!r.text.includes('not memory'), file);
    }
    await assert.rejects(mcp.client.readResource({ uri: 'engram-memory:///../outside.md' }));
  });

  it('reads the newest session notes by default, a named session, and refuses an unknown one', async () => {
    // The newest session has no notes yet: the newest that has them is read.
    assert.match((await mcp.call('read_session_notes')).text, /Session newer-session .*Migrating the cache/s);
    const fresh = await mcp.call('read_session_notes', { session_id: 'just-started' });
    assert.equal(fresh.isError, true);
    assert.match(fresh.text, /Session just-started has no notes yet/);
    assert.match((await mcp.call('read_session_notes', { session_id: 'older-session' })).text, /login redirect/);
    const r = await mcp.call('read_session_notes', { session_id: '../../etc' });
    assert.equal(r.isError, true);
    assert.match(r.text, /No session "\.\.\/\.\.\/etc" .*just-started, newer-session, older-session/);
  });

  it('answers bad arguments and unknown tools with tool errors and keeps serving', async () => {
    const missing = await mcp.call('search_memory', {});
    assert.equal(missing.isError, true);
    assert.match(missing.text, /query/);
    const wrongType = await mcp.call('remember', { text: 'x', type: 'gossip' });
    assert.equal(wrongType.isError, true);
    const unknown = await mcp.call('forget_everything', {});
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /forget_everything not found/);
    assert.equal((await mcp.call('list_memories')).isError, undefined);
  });
});

describe('engram mcp with review on', () => {
  let p: Project;
  let mcp: EngramMcp;
  before(async () => {
    p = await project();
    mcp = await start(p, ['--review'], 'cursor');
  });
  after(() => mcp?.close());

  it('queues remembered text for review instead of writing it, with the client in the proposal', async () => {
    const r = await mcp.call('remember', { text: 'Run the e2e suite with pnpm test:e2e before a release.' });
    assert.equal(r.isError, undefined, r.text);
    const { status, file } = r.structuredContent as { status: string; file: string };
    assert.equal(status, 'proposed');
    assert.match(r.text, /for review/);
    assert.ok(!fs.existsSync(path.join(p.memoryDir, file)), 'not written before the review');
    assert.ok(!fs.readFileSync(path.join(p.memoryDir, 'MEMORY.md'), 'utf8').includes(file));
    const pending = fs.readdirSync(path.join(p.memoryDir, '.pending')).filter((n) => n.endsWith('.md'));
    assert.equal(pending.length, 1);
    const proposed = parseTopicFile(fs.readFileSync(path.join(p.memoryDir, '.pending', pending[0])));
    assert.ok(!proposed.binary);
    assert.equal(proposed.data.originClient, 'cursor');
    assert.equal(proposed.type, 'project');
    // The inspector's review queue says which agent proposed it.
    const queue = await buildReviewQueueView(p.memoryDir, true);
    assert.deepEqual(
      queue.items.map((i) => [i.file, i.writtenBy]),
      [[file, { client: 'cursor', via: 'mcp' }]],
    );
  });
});
