// The review queue on real folders: a proposal waits in `.pending/` where no index, recall or prompt
// sees it; Accept writes it through the memory writer (index line, provenance) and drops it, with the
// user's edit when there was one; Reject keeps it recoverable; a bad record or content loses nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../../../../src/cli/dispatcher';
import { loadMemoryIndex } from '../../../../src/core/memory/autoMemory/memoryIndex';
import {
  acceptPending,
  listPending,
  PENDING_DIR_NAME,
  proposeMemory,
  rejectPending,
  restorePending,
} from '../../../../src/core/memory/autoMemory/pendingQueue';
import { recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
import { parseTopicFile } from '../../../../src/core/memory/autoMemory/topicFile';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs();

const TABS =
  '---\nname: Tabs over spaces\ndescription: the user indents with tabs, never spaces\ntype: feedback\n---\n\nIndent with tabs.\n\n**Why:** the user said so.\n**How to apply:** every file in this project.\n';
const ORIGIN = { sessionId: 'sess-1', messageId: 'msg-1' };

function memoryDir(): string {
  const dir = path.join(tempDir('engram-pending-'), 'memory');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe('the review queue', () => {
  it('keeps a proposal out of the index, recall and topic list until it is accepted', async () => {
    const dir = memoryDir();
    const item = await proposeMemory(
      dir,
      { file: 'feedback_tabs.md', content: TABS, ...ORIGIN },
      new Date('2026-12-01T10:00:00Z'),
    );
    assert.equal(item.action, 'create');
    assert.equal(item.base, null);
    assert.ok(fs.existsSync(path.join(dir, PENDING_DIR_NAME, `${item.id}.md`)));
    assert.equal(fs.existsSync(path.join(dir, 'feedback_tabs.md')), false);

    const index = await loadMemoryIndex(dir);
    assert.deepEqual(index.topics, [], 'the hidden queue is no topic file');
    assert.deepEqual(index.unindexed, []);
    const recalled = await recallForPrompt(dir, 'tabs or spaces for indentation?', []);
    assert.deepEqual(recalled.files, [], 'nothing pending is recalled');

    const listed = await listPending(dir);
    assert.deepEqual(listed.problems, []);
    assert.deepEqual(
      listed.items.map((i) => [i.file, i.content, i.sessionId]),
      [['feedback_tabs.md', TABS, 'sess-1']],
    );

    const accepted = await acceptPending(dir, item.id);
    assert.deepEqual(accepted, { file: 'feedback_tabs.md', title: 'Tabs over spaces', team: false, type: 'feedback' });
    const saved = parseTopicFile(fs.readFileSync(path.join(dir, 'feedback_tabs.md')));
    assert.ok(
      !saved.binary && saved.data.originSessionId === 'sess-1' && saved.data.originMessageId === 'msg-1',
      'provenance stamped',
    );
    assert.equal(
      fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'),
      '- [Tabs over spaces](feedback_tabs.md) — the user indents with tabs, never spaces\n',
    );
    assert.deepEqual((await listPending(dir)).items, []);
    assert.deepEqual(fs.readdirSync(path.join(dir, PENDING_DIR_NAME)), []);
  });

  it('accepts the edited text when the user changed the proposal, and records an update with its base', async () => {
    const dir = memoryDir();
    const before = TABS.replace('Indent with tabs.', 'Indent with two spaces.');
    fs.writeFileSync(path.join(dir, 'feedback_tabs.md'), before);
    const first = await proposeMemory(dir, { file: 'feedback_tabs.md', content: TABS, ...ORIGIN });
    assert.equal(first.action, 'update');
    assert.equal(first.base, before);
    // A second proposal for the same file replaces the first one's content and keeps its base.
    const second = await proposeMemory(dir, {
      file: './feedback_tabs.md',
      content: TABS.replace('every file', 'every source file'),
      sessionId: 'sess-2',
      messageId: 'msg-9',
    });
    assert.equal(second.id, first.id);
    assert.equal(second.base, before);
    assert.equal((await listPending(dir)).items.length, 1);

    fs.writeFileSync(second.contentPath, TABS.replace('Indent with tabs.', 'Indent with tabs (width 4).'));
    await acceptPending(dir, second.id);
    const text = fs.readFileSync(path.join(dir, 'feedback_tabs.md'), 'utf8');
    assert.match(text, /Indent with tabs \(width 4\)\./);
    assert.match(text, /originSessionId: sess-2/);
  });

  it('rejects into a folder it can restore from, and refuses content that is no topic file', async () => {
    const dir = memoryDir();
    const item = await proposeMemory(dir, { file: 'project_freeze.md', content: 'just some words\n', ...ORIGIN });
    await assert.rejects(acceptPending(dir, item.id), /front matter needs a type/);
    assert.equal((await listPending(dir)).items.length, 1, 'a refused accept keeps the item');
    assert.equal(fs.existsSync(path.join(dir, 'project_freeze.md')), false);

    await rejectPending(dir, item.id);
    assert.deepEqual((await listPending(dir)).items, []);
    await assert.rejects(acceptPending(dir, item.id), /accepted or rejected already/);
    await restorePending(dir, item.id);
    assert.deepEqual(
      (await listPending(dir)).items.map((i) => i.content),
      ['just some words\n'],
    );
  });

  it('reports a broken record and leaves it where it is; ids and targets from disk are checked', async () => {
    const dir = memoryDir();
    const q = path.join(dir, PENDING_DIR_NAME);
    fs.mkdirSync(q);
    fs.writeFileSync(path.join(q, 'broken.json'), '{"version": 1, "id": "broken"');
    fs.writeFileSync(
      path.join(q, 'escape.json'),
      JSON.stringify({
        version: 1,
        id: 'escape',
        file: '../outside.md',
        team: false,
        action: 'create',
        base: null,
        sessionId: 's',
        messageId: 'm',
        proposedAt: '2026-12-01T00:00:00Z',
      }),
    );
    fs.writeFileSync(path.join(q, 'escape.md'), TABS);
    const listed = await listPending(dir);
    assert.deepEqual(listed.items, []);
    assert.equal(listed.problems.length, 2);
    assert.match(listed.problems.join('\n'), /broken\.json: the record is not valid JSON/);
    assert.match(listed.problems.join('\n'), /escape\.json: .*"\.\."/);
    assert.ok(fs.existsSync(path.join(q, 'broken.json')), 'nothing is deleted');
    await assert.rejects(acceptPending(dir, '../x'), /Not a review queue id/);
    await assert.rejects(acceptPending(dir, 'escape'), /"\.\."/);
    assert.equal(fs.existsSync(path.join(dir, '..', 'outside.md')), false);
  });

  it('queues a team proposal in the private queue and accepts it into the team folder and its index', async () => {
    const dir = memoryDir();
    const item = await proposeMemory(dir, {
      file: 'team/project_deploy.md',
      content: TABS.replace('type: feedback', 'type: project'),
      ...ORIGIN,
    });
    assert.equal(item.team, true);
    const accepted = await acceptPending(dir, item.id);
    assert.equal(accepted.team, true);
    assert.ok(fs.existsSync(path.join(dir, 'team', 'project_deploy.md')));
    assert.match(fs.readFileSync(path.join(dir, 'team', 'MEMORY.md'), 'utf8'), /\(project_deploy\.md\)/);
    assert.equal(fs.existsSync(path.join(dir, 'MEMORY.md')), false);
  });

  it('is listed by `engram inspect --json`, per project', async () => {
    const root = tempDir('engram-inspect-root-');
    const dir = path.join(root, 'projects', '-work-demo', 'memory');
    fs.mkdirSync(dir, { recursive: true });
    await proposeMemory(dir, { file: 'feedback_tabs.md', content: TABS, ...ORIGIN });
    let out = '';
    const code = await runCli(['inspect', '--json', '--root', root], {
      stdout: (t) => void (out += t),
      stderr: () => undefined,
      env: {},
      cwd: root,
      signal: new AbortController().signal,
    });
    assert.equal(code, 0);
    const parsed = JSON.parse(out) as {
      projects: Array<{
        key: string;
        memory: { review?: { items: Array<{ file: string; action: string; title: string; type: string }> } };
      }>;
    };
    const project = parsed.projects.find((p) => p.key === '-work-demo');
    assert.deepEqual(
      project?.memory.review?.items.map((i) => [i.file, i.action, i.title, i.type]),
      [['feedback_tabs.md', 'create', 'Tabs over spaces', 'feedback']],
    );
  });
});
