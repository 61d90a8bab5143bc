// Recall: BM25 picks the topic files that fit a message, at most 5, each attached once per conversation
// unless it changed, stored with the prompt so the next request repeats the same bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ApiMessage, ContentBlock } from '../../../../src/core/conversation/types';
import { attachAutoMemory, prepareAutoMemory, type AutoMemoryHandle } from '../../../../src/core/memory/autoMemory/attach';
import { rankBm25, tokenize } from '../../../../src/core/memory/autoMemory/bm25';
import type { AutoMemoryEvent } from '../../../../src/core/memory/autoMemory/extraction';
import { attachedInConversation, isMemoryAttachment, recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
import { assertTranscriptMatches, startSession } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

let handle: AutoMemoryHandle | undefined;
// The extraction agent runs in the background: it must be done with the server and the folders first.
const server = useTestServer({ settle: () => stopAutoMemory() });
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

async function stopAutoMemory(): Promise<void> {
  await handle?.idle();
  handle?.dispose();
  handle = undefined;
}

function topic(dir: string, file: string, type: string, description: string, body = 'Details.'): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), `---\nname: ${file.replace('.md', '')}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`);
}

const FILES: Array<[string, string, string]> = [
  ['feedback_db_tests.md', 'feedback', 'integration tests must use a real database, never mocks'],
  ['project_db_migrations.md', 'project', 'database migrations run with the migrate script before tests'],
  ['reference_db_dashboards.md', 'reference', 'Grafana dashboards for database latency'],
  ['feedback_db_fixtures.md', 'feedback', 'test fixtures for the database live in fixtures/sql'],
  ['project_db_choice.md', 'project', 'Postgres was chosen as the database for legal reasons'],
  ['user_db_expert.md', 'user', 'the user is a database administrator with deep Postgres knowledge'],
  ['user_role.md', 'user', 'the user prefers short answers in Chinese'],
  ['reference_linear.md', 'reference', 'bugs are tracked in the Linear project INGEST'],
];

describe('bm25', () => {
  it('tokenizes words, folds simple suffixes and splits CJK into characters and bigrams', () => {
    assert.deepEqual(tokenize('The Tests are testing tested code'), ['test', 'test', 'test', 'code']);
    assert.deepEqual(tokenize('数据库 tests'), ['数', '数据', '据', '据库', '库', 'test']);
  });

  it('ranks by term rarity and leaves out documents with no shared term', () => {
    const hits = rankBm25([
      { id: 'a', text: 'database tests real database' },
      { id: 'b', text: 'dashboards for latency' },
      { id: 'c', text: 'tests in general' },
    ], 'how do I test the database?');
    assert.deepEqual(hits.map((h) => h.id), ['a', 'c']);
    assert.deepEqual(rankBm25([{ id: 'a', text: 'x' }], 'the and of'), []);
  });
});

describe('recallForPrompt', () => {
  it('picks at most 5 relevant files, not the unrelated ones, and nothing twice unless it changed', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-rc-');
    const dir = path.join(dataDir, 'memory');
    for (const [file, type, description] of FILES) topic(dir, file, type, description);
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), FILES.map(([f, , d]) => `- [${f}](${f}) — ${d}`).join('\n'));

    const first = await recallForPrompt(dir, 'Why does the database test fail?', []);
    assert.equal(first.blocks.length, 5);
    assert.equal(first.files[0].file, 'feedback_db_tests.md');
    assert.ok(first.files.every((f) => f.file.includes('_db_')), first.files.map((f) => f.file).join());
    assert.ok(first.blocks.every((b) => isMemoryAttachment(b.text)));
    assert.match(first.blocks[0].text, /^<engram-memory file="feedback_db_tests\.md" hash="[0-9a-f]{12}">\n/);
    assert.match(first.blocks[0].text, /integration tests must use a real database/);

    const messages: ApiMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'Why does the database test fail?' }, ...first.blocks] }, { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }];
    assert.equal(attachedInConversation(messages).size, 5);
    const second = await recallForPrompt(dir, 'Why does the database test fail?', messages);
    assert.deepEqual(second.files.map((f) => f.file), ['user_db_expert.md'], 'only the one not attached yet');

    fs.appendFileSync(path.join(dir, 'feedback_db_tests.md'), 'Also: run them in CI.\n');
    const third = await recallForPrompt(dir, 'database tests', messages);
    assert.ok(third.files.some((f) => f.file === 'feedback_db_tests.md'), 'a changed file comes again');
    assert.ok(!third.files.some((f) => f.file === 'project_db_migrations.md'));

    assert.deepEqual((await recallForPrompt(dir, 'hello there', [])).files, []);
    assert.deepEqual((await recallForPrompt(path.join(dataDir, 'none'), 'database', [])).files, []);
  });
});

describe('recall in a conversation', () => {
  it('stores the attachments with the prompt, so the next request starts with the same bytes', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const memory = await prepareAutoMemory(dataDir, workspace);
    for (const [file, type, description] of FILES) topic(memory.dir, file, type, description);
    const { session } = await startSession(server, { workspace, dataDir, memory: memory.systemSlot });
    handle = attachAutoMemory(session.agent, { memoryDir: memory.dir, transcriptPath: session.transcriptPath, extraction: false });
    const events: AutoMemoryEvent[] = [];
    handle.on((e) => events.push(e));

    const turnStarts: string[] = [];
    session.agent.on((e) => {
      if (e.type === 'turnStart') turnStarts.push(e.prompt);
    });
    server.enqueue({ content: [{ type: 'text', text: 'Use the real database.' }] }, { content: [{ type: 'text', text: 'Chinese, short.' }] });
    const r1 = server.requests.length;
    await session.agent.runTurn('How should the database tests be written?');
    await session.agent.runTurn('What language do I like answers in?');
    const req1 = server.requests[r1].body.messages;
    const req2 = server.requests[r1 + 1].body.messages;

    const firstUser = session.agent.messages[0].content as ContentBlock[];
    assert.equal(firstUser[0].type === 'text' && firstUser[0].text, 'How should the database tests be written?');
    assert.equal(firstUser.length, 6, 'the prompt and 5 memory blocks in one message');
    const strip = (m: ApiMessage[]): unknown => JSON.parse(JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v)));
    assert.deepEqual(strip(req2.slice(0, req1.length)), strip(req1), 'the second request repeats the first one byte for byte');
    assert.equal(JSON.stringify(strip(req2.slice(0, req1.length))), JSON.stringify(strip(req1)));
    const secondUser = session.agent.messages[2].content as ContentBlock[];
    assert.ok(secondUser.some((b) => b.type === 'text' && b.text.includes('file="user_role.md"')));
    assert.ok(!secondUser.some((b) => b.type === 'text' && b.text.includes('file="feedback_db_tests.md"')), 'not attached twice');
    assert.deepEqual(events.filter((e) => e.type === 'memoryRecalled').length, 2);
    assert.deepEqual(turnStarts, ['How should the database tests be written?', 'What language do I like answers in?'], 'UIs get the typed prompt');
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);

    // Callers can pass attachments themselves; they join recall's in the same stored message.
    server.enqueue({ content: [{ type: 'text', text: 'seen' }] });
    await session.agent.runTurn('Check this note.', undefined, { attachments: [{ type: 'text', text: '<note>from the caller</note>' }] });
    const third = session.agent.messages[4].content as ContentBlock[];
    assert.deepEqual(third.map((b) => b.type === 'text' && b.text.slice(0, 20)), ['Check this note.', '<note>from the calle']);
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);
  });
});
