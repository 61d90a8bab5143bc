// `engram inspect --json` on a Claude Code root built from real Claude Code 2.1.88 files, and on an
// Engram root written by Engram's own writers: the output has exactly the documented shape.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCli } from '../../../src/cli/dispatcher';
import { openSessionTranscript } from '../../../src/core/conversation/transcriptWriter';
import { writeMemory } from '../../../src/core/memory/autoMemory/memoryWriter';
import { CC_FIXTURES } from '../conversation/testSupport';
import { useTempDirs } from '../support/tempDirs';

const FIXTURES = CC_FIXTURES;
const KEY = '-home-dev-demo';

const tempDir = useTempDirs('all');
let tmp: string;
before(() => {
  tmp = tempDir('engram-inspect-');
});

async function inspect(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['inspect', ...argv], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env,
    cwd: tmp,
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

function sessionIdOf(file: string): string {
  const m = /"sessionId":"([^"]+)"/.exec(fs.readFileSync(file, 'utf8'));
  assert.ok(m);
  return m[1];
}

const keys = (o: object): string[] => Object.keys(o);

/** The documented fields first, then the rest of the inspector's memory model (MemoryView, MemoryEntryView). */
const MEMORY_KEYS = [
  'dir',
  'entries',
  'unindexed',
  'warnings',
  'exists',
  'instructions',
  'loadedLines',
  'totalLines',
  'maxLines',
  'unindexedEntries',
  'trash',
];
const ENTRY_KEYS = [
  'title',
  'file',
  'hook',
  'type',
  'tokens',
  'loaded',
  'missing',
  'key',
  'group',
  'path',
  'mtimeMs',
  'line',
  'indexed',
];

/**
 * Exactly this shape:
 * {"root","projects":[{"key","memory":{"dir","entries":[...],"unindexed","warnings",...},"sessions":[...]}]}.
 */
function assertShape(out: unknown): void {
  const o = out as { root: unknown; projects: Array<Record<string, unknown>> };
  assert.deepEqual(keys(o), ['root', 'projects']);
  assert.equal(typeof o.root, 'string');
  for (const p of o.projects) {
    assert.deepEqual(keys(p), ['key', 'memory', 'sessions']);
    const m = p.memory as Record<string, unknown>;
    assert.deepEqual(keys(m), MEMORY_KEYS);
    for (const e of [
      ...(m.entries as Array<Record<string, unknown>>),
      ...(m.unindexedEntries as Array<Record<string, unknown>>),
    ]) {
      assert.deepEqual(keys(e), [
        ...ENTRY_KEYS,
        ...(e.origin === undefined ? [] : ['origin']),
        ...(e.uses === undefined ? [] : ['uses']),
      ]);
      assert.ok(e.uses === undefined || (Number.isInteger(e.uses) && Number(e.uses) >= 0));
      assert.equal(typeof e.title, 'string');
      assert.ok(e.type === null || ['user', 'feedback', 'project', 'reference'].includes(String(e.type)));
      assert.ok(e.tokens === null || typeof e.tokens === 'number');
      assert.equal(typeof e.loaded, 'boolean');
      assert.equal(typeof e.missing, 'boolean');
    }
    assert.ok((m.unindexed as unknown[]).every((f) => typeof f === 'string'));
    assert.ok((m.warnings as unknown[]).every((w) => typeof w === 'string'));
    for (const s of p.sessions as Array<Record<string, unknown>>) {
      assert.deepEqual(keys(s), [
        'id',
        'lines',
        'corruptLines',
        'repairedLines',
        'problems',
        'hasNotes',
        'compactions',
      ]);
      for (const c of s.compactions as Array<Record<string, unknown>>)
        assert.deepEqual(keys(c), ['trigger', 'preTokens', 'timestamp']);
    }
  }
}

describe('engram inspect --json', () => {
  it('reads a Claude Code root built from real Claude Code files', async () => {
    const root = path.join(tmp, 'claude');
    const project = path.join(root, 'projects', KEY);
    fs.mkdirSync(project, { recursive: true });
    const transcripts = [
      'hello-single-turn.jsonl',
      'interactive-manual-compact.transcript.jsonl',
      'auto-compact-window60000.transcript.jsonl',
      'sm-compact.transcript.jsonl',
      'tool-multiturn-after-manual-compact.jsonl',
    ];
    const expected = new Map<string, { lines: number; compactions: number }>();
    for (const name of transcripts) {
      const src = path.join(FIXTURES, name);
      const id = sessionIdOf(src);
      fs.copyFileSync(src, path.join(project, `${id}.jsonl`));
      const text = fs.readFileSync(src, 'utf8');
      expected.set(id, {
        lines: text.split('\n').length - 1,
        compactions: (text.match(/"subtype":"compact_boundary"/g) ?? []).length,
      });
    }
    const smId = sessionIdOf(path.join(FIXTURES, 'sm-compact.transcript.jsonl'));
    fs.mkdirSync(path.join(project, smId, 'session-memory'), { recursive: true });
    fs.copyFileSync(
      path.join(FIXTURES, 'sm-session-memory-summary.md'),
      path.join(project, smId, 'session-memory', 'summary.md'),
    );
    fs.copyFileSync(path.join(FIXTURES, 'interactive-history.jsonl'), path.join(root, 'history.jsonl'));
    // A damaged copy: a garbage line in the middle and a torn last line.
    const hello = fs.readFileSync(path.join(FIXTURES, 'hello-single-turn.jsonl'), 'utf8').split('\n');
    fs.writeFileSync(
      path.join(project, 'damaged.jsonl'),
      [...hello.slice(0, 3), '{not json', ...hello.slice(3, -1), '{"type":"user","uu'].join('\n'),
    );
    // Memory as Claude Code writes it, with a metadata block, a missing file and an unindexed one.
    const mem = path.join(project, 'memory');
    fs.mkdirSync(mem);
    fs.writeFileSync(
      path.join(mem, 'MEMORY.md'),
      '- [User role](user_role.md) — data scientist\n- [Gone](gone.md) — deleted by hand\n',
    );
    fs.writeFileSync(
      path.join(mem, 'user_role.md'),
      '---\nname: user_role\ndescription: data scientist\nmetadata:\n  type: user\n---\n\nThe user is a data scientist.\n',
    );
    fs.writeFileSync(path.join(mem, 'feedback_extra.md'), '---\nname: extra\ndescription: x\ntype: feedback\n---\nx\n');

    const run = await inspect(['--root', root, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as {
      root: string;
      projects: Array<{
        key: string;
        memory: { dir: string; entries: Array<Record<string, unknown>>; unindexed: string[]; warnings: string[] };
        sessions: Array<{
          id: string;
          lines: number;
          corruptLines: number;
          hasNotes: boolean;
          compactions: Array<{ trigger: string; preTokens: number; timestamp: string }>;
        }>;
      }>;
    };
    assertShape(out);
    assert.equal(out.root, root);
    assert.deepEqual(
      out.projects.map((p) => p.key),
      [KEY],
    );
    const p = out.projects[0];
    assert.equal(p.memory.dir, mem);
    assert.deepEqual(
      p.memory.entries.map((e) => [e.title, e.file, e.type, e.loaded, e.missing]),
      [
        ['User role', 'user_role.md', 'user', true, false],
        ['Gone', 'gone.md', null, true, true],
      ],
    );
    assert.ok(typeof p.memory.entries[0].tokens === 'number' && (p.memory.entries[0].tokens as number) > 5);
    assert.deepEqual(p.memory.unindexed, ['feedback_extra.md']);
    assert.deepEqual(p.memory.warnings, ['MEMORY.md line 2 ("Gone") links to gone.md, which does not exist']);

    const byId = new Map(p.sessions.map((s) => [s.id, s]));
    assert.equal(byId.size, transcripts.length + 1);
    for (const [id, e] of expected) {
      const s = byId.get(id);
      assert.ok(s, id);
      assert.equal(s.lines, e.lines, id);
      assert.equal(s.corruptLines, 0, id);
      assert.equal(s.compactions.length, e.compactions, id);
      assert.equal(s.hasNotes, id === smId, id);
    }
    const manual = byId.get(sessionIdOf(path.join(FIXTURES, 'interactive-manual-compact.transcript.jsonl')));
    assert.deepEqual(manual?.compactions, [
      { trigger: 'manual', preTokens: 24107, timestamp: '2026-11-29T22:07:35.408Z' },
    ]);
    assert.ok(byId.get(smId)?.compactions.every((c) => c.trigger === 'auto' && c.preTokens > 0));
    const damaged = byId.get('damaged') as unknown as {
      problems: Array<{ file: string; line: number; action: string }>;
    };
    assert.deepEqual(
      { ...byId.get('damaged'), compactions: undefined, problems: undefined },
      {
        id: 'damaged',
        lines: 7,
        corruptLines: 2,
        repairedLines: 0,
        problems: undefined,
        hasNotes: false,
        compactions: undefined,
      },
    );
    // Each one with its file and line (issue #13): the garbage line 4 and the torn last line 7.
    const damagedFile = path.join(project, 'damaged.jsonl');
    assert.deepEqual(
      damaged.problems.map((x) => [x.file, x.line, x.action]),
      [
        [damagedFile, 4, 'skipped'],
        [damagedFile, 7, 'skipped'],
      ],
    );

    const only = JSON.parse((await inspect(['--root', root, '--project', '/home/dev/demo', '--json'])).stdout) as {
      projects: unknown[];
    };
    assert.equal(only.projects.length, 1);
    const none = await inspect(['--root', root, '--project', '/elsewhere', '--json']);
    assert.deepEqual(JSON.parse(none.stdout), { root, projects: [] });
    assert.match(none.stderr, /no project data for \/elsewhere/);

    const text = await inspect(['--root', root]);
    assert.match(text.stdout, /Project -home-dev-demo/);
    assert.match(text.stdout, /Gone \(gone\.md\) — deleted by hand \[untyped, MISSING\]/);
  });

  it('reads an Engram root written by Engram, from ENGRAM_DATA_DIR by default', async () => {
    const root = path.join(tmp, 'engram');
    const projectPath = '/work/demo';
    const key = '-work-demo';
    const w = openSessionTranscript({
      dataDir: root,
      projectPath,
      sessionId: 'sess-a',
      version: '0.1.0',
      entrypoint: 'test',
    });
    await w.appendUserPrompt('hello');
    await w.appendAssistantBlock(
      { id: 'msg_1', model: 'm', stopReason: 'end_turn', usage: { input_tokens: 10, output_tokens: 2 } },
      { type: 'text', text: 'hi' },
    );
    await w.appendCompactBoundary({ trigger: 'auto', preTokens: 160_000 });
    await w.appendCompactSummary('Summary.');
    await w.flush();
    await writeMemory(path.join(root, 'projects', key, 'memory'), {
      file: 'feedback_tabs.md',
      title: 'Tabs',
      hook: 'indent with tabs',
      description: 'indent with tabs',
      type: 'feedback',
      body: 'Tabs.',
      provenance: { originSessionId: 'sess-a', originMessageId: 'u1' },
    });

    const run = await inspect(['--json'], { ENGRAM_DATA_DIR: root });
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as {
      root: string;
      projects: Array<{
        key: string;
        memory: { entries: unknown[] };
        sessions: Array<{ id: string; lines: number; compactions: Array<{ trigger: string; preTokens: number }> }>;
      }>;
    };
    assertShape(out);
    assert.equal(out.root, root);
    assert.deepEqual(
      out.projects.map((p) => p.key),
      [key],
    );
    const mem = path.join(root, 'projects', key, 'memory');
    const tabs = out.projects[0].memory.entries[0] as { tokens: number; mtimeMs: number };
    assert.deepEqual(out.projects[0].memory.entries, [
      {
        title: 'Tabs',
        file: 'feedback_tabs.md',
        hook: 'indent with tabs',
        type: 'feedback',
        tokens: tabs.tokens,
        loaded: true,
        missing: false,
        // The rest of what the inspector shows of it: where it is, its index line, and where it came from.
        key: 'private:feedback_tabs.md:1',
        group: 'private',
        path: path.join(mem, 'feedback_tabs.md'),
        mtimeMs: tabs.mtimeMs,
        line: 1,
        indexed: true,
        origin: { sessionId: 'sess-a', messageId: 'u1' },
        // Never recalled or read yet (the count lives in the memory folder's .usage.json).
        uses: 0,
      },
    ]);
    assert.equal(typeof tabs.mtimeMs, 'number');
    assert.deepEqual(
      out.projects[0].sessions.map((s) => [s.id, s.lines, s.compactions.map((c) => [c.trigger, c.preTokens])]),
      [['sess-a', 4, [['auto', 160000]]]],
    );
  });

  it('prints help and rejects stray arguments', async () => {
    assert.match((await inspect(['--help'])).stdout, /Usage: engram inspect/);
    assert.equal((await inspect(['extra'])).code, 2);
    assert.equal((await inspect(['--nope'])).code, 2);
  });
});

describe('engram inspect --root', () => {
  it('fails with a clear message when the root is not a folder (a typo is not an empty data dir)', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['inspect', '--root', '/nonexistent/engram-root'], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: {},
      cwd: process.cwd(),
      signal: new AbortController().signal,
    });
    assert.equal(code, 1);
    assert.match(err.join(''), /no data root at \/nonexistent\/engram-root/);
    assert.equal(out.join(''), '');
  });
});
