// Issue #20, part 3: a memory is never orphaned. A topic file left without its MEMORY.md line (a run
// killed between the two writes) is indexed by the next session opened, whichever it is, with a notice
// and the origin `recovered`; a "remember" writes the line as soon as the file is written, not when
// the turn ends; and a new line goes where the index loads, also in a MEMORY.md far past its cap.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../../../../src/cli/dispatcher';
import { AnthropicModelClient } from '../../../../src/core/llm/anthropicClient';
import { prepareAutoMemory } from '../../../../src/core/memory/autoMemory/attach';
import { insertWhereLoaded } from '../../../../src/core/memory/autoMemory/indexPlacement';
import { loadMemoryIndex } from '../../../../src/core/memory/autoMemory/memoryIndex';
import { autoMemoryDir } from '../../../../src/core/memory/autoMemory/memoryPaths';
import { ensureIndexed } from '../../../../src/core/memory/autoMemory/memoryWriter';
import { openEngramSession } from '../../../../src/core/session/openEngramSession';
import type { EngramSession } from '../../../../src/core/session/engramSession';
import { SettingsStore } from '../../../../src/core/settings/settingsStore';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();

const PROJECT_X =
  '---\nname: Project X\ndescription: the launch moved to 2026-03-02\ntype: project\n---\n\nThe launch moved to 2026-03-02.\n**Why:** legal review.\n**How to apply:** plan releases after it.\n';

async function project(): Promise<{ cwd: string; dataDir: string; dir: string }> {
  const root = tempDir('engram-recover-');
  const cwd = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(cwd, { recursive: true });
  const dir = await autoMemoryDir(dataDir, cwd);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'user_role.md'),
    '---\nname: Role\ndescription: the user is a data engineer\ntype: user\n---\n\nA data engineer.\n',
  );
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), '- [Role](user_role.md) — the user is a data engineer\n');
  return { cwd, dataDir, dir };
}

function open(p: { cwd: string; dataDir: string }, resumeSessionId?: string): Promise<EngramSession> {
  return openEngramSession(
    {
      cwd: p.cwd,
      dataDir: p.dataDir,
      client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
      trusted: true,
      permissionPrompt: { ask: async () => 'allowOnce' },
      version: '0.0.0-test',
      entrypoint: 'test',
      retry: { policy: { baseDelayMs: 5, maxDelayMs: 20 } },
      ...(resumeSessionId ? { resumeSessionId } : {}),
    },
    new SettingsStore({
      'memory.extraction.enabled': false,
      'sessionNotes.enabled': false,
      'memory.recall.enabled': false,
    }),
  );
}

const read = (dir: string, file: string): string => fs.readFileSync(path.join(dir, file), 'utf8');
const linesFor = (dir: string, file: string): string[] =>
  read(dir, 'MEMORY.md')
    .split('\n')
    .filter((l) => l.includes(`](${file})`));

describe('a topic file without its index line', () => {
  it("is indexed by the next session opened (a new one), marked recovered, said once, and in that session's prompt", async () => {
    const p = await project();
    fs.writeFileSync(path.join(p.dir, 'project_x.md'), PROJECT_X);
    const session = await open(p);
    try {
      assert.deepEqual(linesFor(p.dir, 'project_x.md'), [
        '- [Project X](project_x.md) — the launch moved to 2026-03-02',
      ]);
      assert.match(read(p.dir, 'project_x.md'), /^---\nname: Project X\n[\s\S]*\noriginSessionId: recovered\n---\n/);
      assert.equal(session.notices.length, 1);
      assert.match(session.notices[0], /^Recovered a memory: project_x\.md \("Project X"\) had no MEMORY\.md line/);
      assert.ok(
        session.agent.systemPrompt.some((b) => b.text.includes('[Project X](project_x.md)')),
        'loaded into the prompt',
      );
    } finally {
      await session.finish();
    }
    // Said once: the next session finds nothing to recover.
    const next = await open(p);
    await next.finish();
    assert.deepEqual(next.notices, []);
    assert.equal(linesFor(p.dir, 'project_x.md').length, 1);
  });

  it('keeps an origin it already has, reports broken front matter instead of guessing, and leaves the trash, the review queue and empty files alone', async () => {
    const p = await project();
    fs.writeFileSync(
      path.join(p.dir, 'stamped.md'),
      PROJECT_X.replace('type: project\n', 'type: project\noriginSessionId: s-1\noriginMessageId: m-1\n'),
    );
    fs.writeFileSync(path.join(p.dir, 'broken.md'), '---\nname: [unclosed\ntype: project\n---\n\nBody.\n');
    fs.writeFileSync(path.join(p.dir, 'untyped.md'), '---\nname: Untyped\ndescription: no type\n---\n\nBody.\n');
    fs.writeFileSync(path.join(p.dir, 'emptied.md'), '---\nname: Gone\ndescription: forgotten\ntype: user\n---\n\n');
    for (const hidden of ['.trash/20260101T000000000Z-abcdef/files', '.pending']) {
      fs.mkdirSync(path.join(p.dir, hidden), { recursive: true });
      fs.writeFileSync(path.join(p.dir, hidden, 'project_x.md'), PROJECT_X);
    }
    const session = await open(p);
    await session.finish();
    const index = read(p.dir, 'MEMORY.md');
    assert.match(index, /\[Project X\]\(stamped\.md\)/);
    assert.doesNotMatch(index, /broken\.md|untyped\.md|emptied\.md|project_x\.md/);
    assert.match(read(p.dir, 'stamped.md'), /originSessionId: s-1\noriginMessageId: m-1\n/);
    assert.doesNotMatch(read(p.dir, 'stamped.md'), /recovered/);
    assert.equal(read(p.dir, 'broken.md'), '---\nname: [unclosed\ntype: project\n---\n\nBody.\n', 'not touched');
    for (const file of ['broken.md', 'untyped.md', 'emptied.md']) {
      assert.ok(
        session.warnings.some((w) => w.startsWith(`Memory: ${file} has no MEMORY.md line and was not indexed`)),
        `${file}: ${session.warnings.join(' | ')}`,
      );
    }
  });

  it('in the team folder is indexed into the team index', async () => {
    const p = await project();
    fs.mkdirSync(path.join(p.dir, 'team'));
    fs.writeFileSync(path.join(p.dir, 'team', 'MEMORY.md'), '');
    fs.writeFileSync(path.join(p.dir, 'team', 'deploy.md'), PROJECT_X.replace('Project X', 'Deploy'));
    const memory = await prepareAutoMemory(p.dataDir, p.cwd, { recover: true, team: { repo: 'acme/app' } });
    assert.deepEqual(linesFor(path.join(p.dir, 'team'), 'deploy.md'), [
      '- [Deploy](deploy.md) — the launch moved to 2026-03-02',
    ]);
    assert.doesNotMatch(read(p.dir, 'MEMORY.md'), /deploy\.md/);
    assert.match(memory.recovery?.notices[0] ?? '', /deploy\.md \("Deploy"\) had no team\/MEMORY\.md line/);
    assert.ok(memory.team?.index.entries.some((e) => e.file === 'deploy.md'));
  });

  it("is said on engram -p's stderr without -v", async () => {
    const p = await project();
    fs.writeFileSync(path.join(p.dir, 'project_x.md'), PROJECT_X);
    server.enqueue({ content: [{ type: 'text', text: 'Hello.' }] });
    let stderr = '';
    const code = await runCli(['-p', 'hi', '--cwd', p.cwd], {
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, ENGRAM_DATA_DIR: p.dataDir },
      cwd: p.cwd,
      signal: new AbortController().signal,
    });
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^engram: Recovered a memory: project_x\.md \("Project X"\) had no MEMORY\.md line/m);
  });
});

describe('"remember"', () => {
  /** A model that saves project_x.md, and only edits the index in its next response, as models do. */
  function rememberScript(
    dir: string,
    seen: { indexAtSecondCall?: string; fileAtSecondCall?: string },
    indexEdit: { old: string; add: string },
    readPart: Record<string, number> = {},
  ): void {
    let calls = 0;
    server.setResponder(() => {
      const i = calls++;
      if (i === 0) {
        return {
          content: [
            { type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'MEMORY.md'), ...readPart } },
            {
              type: 'tool_use',
              name: 'Write',
              input: { file_path: path.join(dir, 'project_x.md'), content: PROJECT_X },
            },
          ],
        };
      }
      if (i === 1) {
        // What a kill right now would leave on disk.
        seen.indexAtSecondCall = read(dir, 'MEMORY.md');
        seen.fileAtSecondCall = read(dir, 'project_x.md');
        return {
          content: [
            {
              type: 'tool_use',
              name: 'Edit',
              input: {
                file_path: path.join(dir, 'MEMORY.md'),
                old_string: indexEdit.old,
                new_string: `${indexEdit.old}\n${indexEdit.add}`,
              },
            },
          ],
        };
      }
      return { content: [{ type: 'text', text: 'Saved project_x.md and its MEMORY.md line.' }] };
    });
  }

  it('has the index line and the provenance on disk as soon as the file is written, and one line when the turn ends', async () => {
    const p = await project();
    const seen: { indexAtSecondCall?: string; fileAtSecondCall?: string } = {};
    const mine = '- [Launch date](project_x.md) — launch is on 2026-03-02 (legal review)';
    rememberScript(p.dir, seen, { old: '- [Role](user_role.md) — the user is a data engineer', add: mine });
    const session = await open(p);
    const result = await session.remember('the launch moved to 2026-03-02');
    await session.finish();
    assert.equal(result.reason, 'end_turn', result.error?.message);
    assert.match(seen.indexAtSecondCall ?? '', /\]\(project_x\.md\)/, 'indexed before the next model call');
    assert.match(seen.fileAtSecondCall ?? '', new RegExp(`originSessionId: ${session.sessionId}\\n`));
    // The agent's own edit went through, and its line is the one kept.
    assert.deepEqual(linesFor(p.dir, 'project_x.md'), [mine]);
  });

  it('into a 60,000-line MEMORY.md puts the line where it loads, also when the agent appends it at the end', async () => {
    const p = await project();
    const filler = Array.from({ length: 60_000 }, (_, i) => `- [Old ${i}](old_${i}.md) — an old entry`);
    fs.writeFileSync(path.join(p.dir, 'MEMORY.md'), `${filler.join('\n')}\n`);
    const seen: { indexAtSecondCall?: string } = {};
    const mine = '- [Launch date](project_x.md) — launch is on 2026-03-02 (legal review)';
    // Too big to read whole: the agent reads its end, and appends there.
    rememberScript(p.dir, seen, { old: filler[filler.length - 1], add: mine }, { offset: 59_990, limit: 20 });
    const session = await open(p);
    await session.remember('the launch moved to 2026-03-02');
    await session.finish();
    const lines = read(p.dir, 'MEMORY.md').split('\n');
    const at = lines.indexOf(mine);
    assert.ok(at >= 0 && at < 200, `the line is at ${at + 1}`);
    assert.deepEqual(linesFor(p.dir, 'project_x.md'), [mine]);
    const entry = (await loadMemoryIndex(p.dir)).entries.find((e) => e.file === 'project_x.md');
    assert.equal(entry?.loaded, true);
  });
});

describe('a new index line', () => {
  it('goes at the end while that loads, else after the last entry that still loads', () => {
    const caps = { maxLines: 5, maxBytes: 10_000 };
    assert.deepEqual(insertWhereLoaded(['# Memory', '- [A](a.md)'], '- [N](n.md)', caps), [
      '# Memory',
      '- [A](a.md)',
      '- [N](n.md)',
    ]);
    const full = ['# Memory', '- [A](a.md)', '- [B](b.md)', '', 'Some prose.', '- [C](c.md)'];
    assert.deepEqual(insertWhereLoaded(full, '- [N](n.md)', caps), [
      '# Memory',
      '- [A](a.md)',
      '- [B](b.md)',
      '- [N](n.md)',
      '',
      'Some prose.',
      '- [C](c.md)',
    ]);
    // The byte cap counts the same way.
    assert.deepEqual(
      insertWhereLoaded(['- [A](a.md)', '- [B](b.md)', '- [C](c.md)'], '- [N](n.md)', { maxLines: 100, maxBytes: 30 }),
      ['- [A](a.md)', '- [N](n.md)', '- [B](b.md)', '- [C](c.md)'],
    );
  });

  it('from a writer that forgot it lands inside the loaded part of an oversized index', async () => {
    const dir = tempDir('engram-index-');
    fs.writeFileSync(
      path.join(dir, 'MEMORY.md'),
      `${Array.from({ length: 300 }, (_, i) => `- [Old ${i}](old_${i}.md)`).join('\n')}\n`,
    );
    fs.writeFileSync(path.join(dir, 'project_x.md'), PROJECT_X);
    await ensureIndexed(dir, 'project_x.md');
    const entry = (await loadMemoryIndex(dir)).entries.find((e) => e.file === 'project_x.md');
    assert.equal(entry?.line, 200);
    assert.equal(entry?.loaded, true);
  });
});
