// Recall: the local ranking attaches only the topic files that clear the bar (often none, at most 5),
// each once per conversation unless it changed, stored with the prompt so the next request repeats the
// same bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ApiMessage, ContentBlock } from '../../../../src/core/conversation/types';
import {
  attachAutoMemory,
  prepareAutoMemory,
  type AutoMemoryHandle,
} from '../../../../src/core/memory/autoMemory/attach';
import type { AutoMemoryEvent } from '../../../../src/core/memory/autoMemory/extraction';
import {
  attachedInConversation,
  isMemoryAttachment,
  recallForPrompt,
} from '../../../../src/core/memory/autoMemory/recall';
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
  fs.writeFileSync(
    path.join(dir, file),
    `---\nname: ${file.replace('.md', '')}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`,
  );
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

describe('recallForPrompt', () => {
  function folder(): string {
    dataDir = tempDir('engram-rc-');
    const dir = path.join(dataDir, 'memory');
    for (const [file, type, description] of FILES) topic(dir, file, type, description);
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), FILES.map(([f, , d]) => `- [${f}](${f}) — ${d}`).join('\n'));
    return dir;
  }

  it('attaches the file that fits, stemmed and in other words, and nothing twice unless it changed', async () => {
    const dir = folder();
    const first = await recallForPrompt(dir, 'Should the integration tests mock the database?', []);
    assert.equal(first.files[0]?.file, 'feedback_db_tests.md', first.files.map((f) => f.file).join());
    assert.ok(first.files.length <= 2, 'only what clears the bar');
    assert.ok(first.blocks.every((b) => isMemoryAttachment(b.text)));
    assert.match(first.blocks[0].text, /^<engram-memory file="feedback_db_tests\.md" hash="[0-9a-f]{12}">\n/);
    assert.match(first.blocks[0].text, /integration tests must use a real database/);

    const migrations = await recallForPrompt(dir, 'when are the migrations applied, before the tests?', []);
    assert.deepEqual(
      migrations.files.map((f) => f.file),
      ['project_db_migrations.md'],
      '"migrations" and "tests" meet the description\'s "migrations" and "tests", and nothing else does as well',
    );
    assert.deepEqual(
      (await recallForPrompt(dir, 'when are migrations applied?', [])).files,
      [],
      'one shared word alone is not enough',
    );

    const messages: ApiMessage[] = [
      {
        role: 'user',
        content: [{ type: 'text', text: 'Should the integration tests mock the database?' }, ...first.blocks],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ];
    assert.equal(attachedInConversation(messages).size, first.files.length);
    const second = await recallForPrompt(dir, 'Should the integration tests mock the database?', messages);
    assert.ok(!second.files.some((f) => f.file === 'feedback_db_tests.md'), 'not attached twice');

    fs.appendFileSync(path.join(dir, 'feedback_db_tests.md'), 'Also: run them in CI.\n');
    const third = await recallForPrompt(dir, 'Should the integration tests mock the database?', messages);
    assert.equal(third.files[0]?.file, 'feedback_db_tests.md', 'a changed file comes again');
    assert.deepEqual((await recallForPrompt(path.join(dataDir, 'none'), 'database', [])).files, []);
  });

  it('attaches what the file says now: edited in place, it is read again; swapped for a link out, it is left out', {
    skip: process.platform === 'win32',
  }, async () => {
    const dir = folder();
    const q = 'Should the integration tests mock the database?';
    assert.equal((await recallForPrompt(dir, q, [])).files[0]?.file, 'feedback_db_tests.md');
    const file = path.join(dir, 'feedback_db_tests.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Details.', 'Details, edited in place.'));
    assert.match((await recallForPrompt(dir, q, [])).blocks[0].text, /Details, edited in place\./);
    const outside = tempDir('engram-rc-outside-');
    fs.writeFileSync(
      path.join(outside, 'secret.md'),
      fs.readFileSync(file, 'utf8').replace('Details, edited in place.', 'OUTSIDE THE FOLDER'),
    );
    fs.rmSync(file);
    fs.symlinkSync(path.join(outside, 'secret.md'), file);
    const after = await recallForPrompt(dir, q, []);
    assert.ok(!after.files.some((f) => f.file === 'feedback_db_tests.md'), after.files.map((f) => f.file).join());
    assert.ok(after.blocks.every((b) => !b.text.includes('OUTSIDE THE FOLDER')));
  });

  it('attaches nothing to a message no memory bears on', async () => {
    const dir = folder();
    for (const q of [
      'hello there',
      'Format this JSON file with two-space indentation',
      'What is the time complexity of binary search?',
      'thanks, go ahead',
    ]) {
      assert.deepEqual((await recallForPrompt(dir, q, [])).files, [], q);
    }
  });

  it('leaves out a file the agent has read, and takes at most maxFiles of those that clear the bar', async () => {
    const dir = folder();
    const seen: string[] = [];
    const read = await recallForPrompt(dir, 'Should the integration tests mock the database?', [], {
      alreadyInContext: (abs) => {
        seen.push(path.basename(abs));
        return abs.endsWith('feedback_db_tests.md');
      },
    });
    assert.ok(seen.includes('feedback_db_tests.md'));
    assert.ok(!read.files.some((f) => f.file === 'feedback_db_tests.md'));
    const many = path.join(tempDir('engram-rc-many-'), 'memory');
    // A term every file has tells nothing apart: other subjects around them make "kafka" rare.
    for (let i = 0; i < 8; i++)
      topic(many, `kafka_${i}.md`, 'project', `kafka consumer lag alert number ${i}`, 'Kafka consumer lag.');
    for (const [i, subject] of [
      'billing invoices',
      'css colours',
      'release tags',
      'search synonyms',
      'oncall pager',
      'vault backups',
      'thesis chapters',
      'login cookies',
      'translation keys',
      'cache purge',
      'bundle budget',
      'commit format',
    ].entries()) {
      topic(many, `other_${i}.md`, 'project', `${subject} notes`, `About ${subject}.`);
    }
    const capped = await recallForPrompt(many, 'kafka consumer lag', []);
    assert.equal(capped.files.length, 5, 'eight equal files: the first five');
    assert.equal((await recallForPrompt(many, 'kafka consumer lag', [], { maxFiles: 2 })).files.length, 2);
  });

  it('reads Chinese: characters and bigrams, function words left out', async () => {
    const dir = path.join(tempDir('engram-rc-zh-'), 'memory');
    topic(
      dir,
      'refund.md',
      'project',
      '退款异步处理，渠道回调失败时按指数退避重试',
      '用户发起退款后由消费者异步调用渠道接口。',
    );
    topic(dir, 'deploy.md', 'project', '通过 Jenkins 发布到 K8s，生产环境先灰度', '合并后流水线构建镜像。');
    topic(dir, 'logging.md', 'feedback', '日志中不能出现完整卡号', '使用脱敏方法。');
    assert.deepEqual(
      (await recallForPrompt(dir, '用户申请退钱之后系统是怎么处理的？', [])).files.map((f) => f.file),
      ['refund.md'],
    );
    assert.deepEqual(
      (await recallForPrompt(dir, '上线到生产环境要注意什么？', [])).files.map((f) => f.file),
      ['deploy.md'],
    );
    assert.deepEqual((await recallForPrompt(dir, '解释一下什么是闭包', [])).files, []);
  });
});

describe('recall in a conversation', () => {
  it('stores the attachments with the prompt, so the next request starts with the same bytes', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const memory = await prepareAutoMemory(dataDir, workspace);
    for (const [file, type, description] of FILES) topic(memory.dir, file, type, description);
    const { session } = await startSession(server, { workspace, dataDir, memory: memory.systemSlot });
    handle = attachAutoMemory(session.agent, {
      memoryDir: memory.dir,
      transcriptPath: session.transcriptPath,
      extraction: false,
    });
    const events: AutoMemoryEvent[] = [];
    handle.on((e) => events.push(e));

    const turnStarts: string[] = [];
    session.agent.on((e) => {
      if (e.type === 'turnStart') turnStarts.push(e.prompt);
    });
    server.enqueue(
      { content: [{ type: 'text', text: 'Use the real database.' }] },
      { content: [{ type: 'text', text: 'Chinese, short.' }] },
    );
    const r1 = server.requests.length;
    await session.agent.runTurn('How should the database tests be written?');
    await session.agent.runTurn('Should your answers to me be in Chinese?');
    const req1 = server.requests[r1].body.messages;
    const req2 = server.requests[r1 + 1].body.messages;

    const firstUser = session.agent.messages[0].content as ContentBlock[];
    assert.equal(firstUser[0].type === 'text' && firstUser[0].text, 'How should the database tests be written?');
    const recalled = events.find((e) => e.type === 'memoryRecalled');
    assert.ok(
      recalled && recalled.type === 'memoryRecalled' && recalled.files.includes('feedback_db_tests.md'),
      JSON.stringify(recalled),
    );
    assert.equal(firstUser.length, 1 + recalled.files.length, 'the prompt and the memory blocks in one message');
    assert.ok(firstUser.length <= 6);
    const strip = (m: ApiMessage[]): unknown =>
      JSON.parse(JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v)));
    assert.deepEqual(
      strip(req2.slice(0, req1.length)),
      strip(req1),
      'the second request repeats the first one byte for byte',
    );
    assert.equal(JSON.stringify(strip(req2.slice(0, req1.length))), JSON.stringify(strip(req1)));
    const secondUser = session.agent.messages[2].content as ContentBlock[];
    assert.ok(secondUser.some((b) => b.type === 'text' && b.text.includes('file="user_role.md"')));
    assert.ok(
      !secondUser.some((b) => b.type === 'text' && b.text.includes('file="feedback_db_tests.md"')),
      'not attached twice',
    );
    assert.deepEqual(events.filter((e) => e.type === 'memoryRecalled').length, 2);
    assert.deepEqual(
      turnStarts,
      ['How should the database tests be written?', 'Should your answers to me be in Chinese?'],
      'UIs get the typed prompt',
    );
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);

    // Callers can pass attachments themselves; they join recall's in the same stored message.
    server.enqueue({ content: [{ type: 'text', text: 'seen' }] });
    await session.agent.runTurn('Check this note.', undefined, {
      attachments: [{ type: 'text', text: '<note>from the caller</note>' }],
    });
    const third = session.agent.messages[4].content as ContentBlock[];
    assert.deepEqual(
      third.map((b) => b.type === 'text' && b.text.slice(0, 20)),
      ['Check this note.', '<note>from the calle'],
    );
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);
  });
});
