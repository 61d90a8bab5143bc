// Auto memory reading: index lines in their real-world variants, topic files with odd front matter,
// and the caps on what goes into the system prompt (cut visibly, never silently; nothing on disk changes).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { buildSystemPrompt } from '../../../../src/core/agent/systemPrompt';
import { formatIndexLine, loadMemoryIndex, parseIndexLine } from '../../../../src/core/memory/autoMemory/memoryIndex';
import { memorySystemSlot } from '../../../../src/core/memory/autoMemory/memoryPrompts';
import { removeEntry, setIndexEntry, writeMemory } from '../../../../src/core/memory/autoMemory/memoryWriter';
import { recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
import { parseTopicFile, setFrontMatterKeys } from '../../../../src/core/memory/autoMemory/topicFile';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs();
let dir: string;
beforeEach(() => {
  dir = tempDir('engram-mem-');
});

function write(name: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), content);
}

function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(p);
      else out[p] = fs.readFileSync(path.join(dir, p)).toString('base64');
    }
  };
  walk('');
  return out;
}

const topic = (type: string, description: string): string =>
  `---\nname: ${description}\ndescription: ${description}\ntype: ${type}\n---\n\nBody of ${description}.\n`;

describe('parseIndexLine', () => {
  it('reads the variants people and models write', () => {
    assert.deepEqual(parseIndexLine('- [User Role](user_role.md) — data scientist'), {
      title: 'User Role',
      file: 'user_role.md',
      hook: 'data scientist',
    });
    assert.deepEqual(parseIndexLine('* [Testing](feedback_testing.md) - real database only'), {
      title: 'Testing',
      file: 'feedback_testing.md',
      hook: 'real database only',
    });
    assert.deepEqual(parseIndexLine('- [Auth](project_auth.md): legal driven'), {
      title: 'Auth',
      file: 'project_auth.md',
      hook: 'legal driven',
    });
    assert.deepEqual(parseIndexLine('- [Bare](bare.md)'), { title: 'Bare', file: 'bare.md', hook: '' });
    assert.deepEqual(parseIndexLine('  - [Nested](refs/grafana.md) – dashboards\r'), {
      title: 'Nested',
      file: 'refs/grafana.md',
      hook: 'dashboards',
    });
    assert.deepEqual(parseIndexLine('1. **[Bold](<my file.md>)** — spaces'), {
      title: 'Bold',
      file: 'my file.md',
      hook: 'spaces',
    });
    assert.deepEqual(parseIndexLine('- [Esc \\] ok](a%20b.md) — x'), {
      title: 'Esc ] ok',
      file: 'a b.md',
      hook: 'x',
      written: 'a%20b.md',
    });
    assert.equal(parseIndexLine('# Memory index'), undefined);
    assert.equal(parseIndexLine('Some prose about [a link](x.md) in a sentence.'), undefined);
    assert.equal(parseIndexLine('- [Docs](https://example.com/docs) — web'), undefined);
  });

  it('formats lines under the budget and round-trips them', () => {
    const line = formatIndexLine({ title: 'Tests [db]', file: 'feedback_tests.md', hook: 'x'.repeat(300) });
    assert.ok(line.length <= 150, `${line.length}`);
    assert.ok(line.endsWith('…'));
    assert.deepEqual(parseIndexLine(line)?.title, 'Tests [db]');
    assert.equal(formatIndexLine({ title: 'T', file: 'a.md', hook: '' }), '- [T](a.md)');
  });
});

describe('parseTopicFile', () => {
  it('accepts missing front matter, extra keys, metadata.type, CRLF and a BOM', () => {
    const plain = parseTopicFile('just a note\n');
    assert.equal(plain.binary, false);
    if (plain.binary) return;
    assert.equal(plain.hasFrontMatter, false);
    assert.equal(plain.body, 'just a note\n');

    const crlf = parseTopicFile(
      '\ufeff---\r\nname: Tabs\r\ndescription: use tabs\r\ntype: feedback\r\nextra: [1, 2]\r\n---\r\nUse tabs.\r\n',
    );
    assert.ok(!crlf.binary);
    if (crlf.binary) return;
    assert.equal(crlf.name, 'Tabs');
    assert.equal(crlf.type, 'feedback');
    assert.deepEqual(crlf.data.extra, [1, 2]);
    assert.equal(crlf.body, 'Use tabs.\r\n');
    assert.deepEqual(crlf.warnings, []);

    const nested = parseTopicFile('---\nname: n\nmetadata:\n  type: Reference\n---\nbody');
    assert.ok(!nested.binary && nested.type === 'reference');
  });

  it('reports broken YAML, keeps the body and recovers the fields', () => {
    const broken = parseTopicFile(
      '---\nname: [unclosed\ndescription: "still here"\ntype: project\n---\nThe body survives.\n',
    );
    assert.ok(!broken.binary);
    if (broken.binary) return;
    assert.equal(broken.warnings.length, 1);
    assert.match(broken.warnings[0], /not valid YAML/);
    assert.equal(broken.description, 'still here');
    assert.equal(broken.type, 'project');
    assert.equal(broken.body, 'The body survives.\n');
  });

  it('never evaluates JavaScript front matter', () => {
    (globalThis as Record<string, unknown>).__engramPwned = false;
    const js = parseTopicFile('---js\n{ name: (globalThis.__engramPwned = true, "x") }\n---\nbody');
    assert.equal((globalThis as Record<string, unknown>).__engramPwned, false);
    assert.ok(!js.binary && js.warnings.length === 1);
  });

  it('flags binary content and unknown types', () => {
    assert.equal(parseTopicFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2])).binary, true);
    const odd = parseTopicFile('---\ntype: diary\n---\n');
    assert.ok(!odd.binary && odd.type === null && /unknown memory type "diary"/.test(odd.warnings[0]));
  });

  it('edits front matter keys without touching other bytes', () => {
    const text = '---\r\nname: a\r\ntype: user\r\n---\r\nbody\r\n';
    assert.equal(setFrontMatterKeys(text, { type: 'feedback' }), '---\r\nname: a\r\ntype: feedback\r\n---\r\nbody\r\n');
    assert.equal(
      setFrontMatterKeys(text, { originSessionId: 's1' }, { onlyIfMissing: true }),
      '---\r\nname: a\r\ntype: user\r\noriginSessionId: s1\r\n---\r\nbody\r\n',
    );
    assert.equal(
      setFrontMatterKeys('---\nmetadata:\n  type: user\n---\n', { type: 'project' }, { nestedType: true }),
      '---\nmetadata:\n  type: project\n---\n',
    );
    assert.equal(setFrontMatterKeys('plain\n', { type: 'user' }), '---\ntype: user\n---\nplain\n');
  });
});

describe('loadMemoryIndex', () => {
  it('lists entries with type and tokens, unindexed files, nested folders, and ignores the trash and team memory', async () => {
    write(
      'MEMORY.md',
      '# Index\n\n- [Role](user_role.md) — data scientist\n* [Grafana](refs/grafana.md): dashboards\n',
    );
    write('user_role.md', topic('user', 'role'));
    write('refs/grafana.md', topic('reference', 'grafana'));
    write('loose.md', topic('project', 'loose'));
    write('.trash/x/files/old.md', topic('user', 'old'));
    write('team/MEMORY.md', '- [T](t.md)\n');
    write('team/t.md', topic('project', 't'));
    const index = await loadMemoryIndex(dir);
    assert.deepEqual(
      index.entries.map((e) => [e.title, e.file, e.hook, e.type, e.loaded, e.missing]),
      [
        ['Role', 'user_role.md', 'data scientist', 'user', true, false],
        ['Grafana', 'refs/grafana.md', 'dashboards', 'reference', true, false],
      ],
    );
    assert.ok(index.entries.every((e) => typeof e.tokens === 'number' && e.tokens > 0));
    assert.deepEqual(index.unindexed, ['loose.md']);
    assert.deepEqual(index.warnings, []);
    assert.equal(
      index.text,
      '# Index\n\n- [Role](user_role.md) — data scientist\n* [Grafana](refs/grafana.md): dashboards',
    );
  });

  it('loads a 1,000-line index up to the cap, names what was cut, and changes nothing', async () => {
    const lines: string[] = [];
    for (let i = 1; i <= 1000; i++) {
      const name = `topic_${String(i).padStart(4, '0')}.md`;
      lines.push(`- [Topic ${i}](${name}) — hook ${i}`);
      write(name, topic('project', `topic ${i}`));
    }
    write('MEMORY.md', `${lines.join('\n')}\n`);
    const before = snapshot();
    const index = await loadMemoryIndex(dir);
    assert.equal(index.loadedLines, 200);
    assert.equal(index.entries.length, 1000);
    assert.equal(index.entries.filter((e) => e.loaded).length, 200);
    assert.ok(index.entries.slice(200).every((e) => !e.loaded && !e.missing));
    assert.equal(index.warnings.length, 1);
    assert.match(index.warnings[0], /lines 201-1000 were not loaded \(800 entries: topic_0201\.md, topic_0202\.md/);
    assert.match(index.warnings[0], /and 790 more/);
    const promptLines = index.text.split('\n');
    assert.equal(promptLines.filter((l) => l.startsWith('- [')).length, 200);
    assert.match(index.text, /WARNING: MEMORY\.md is over its 200-line limit/);
    assert.deepEqual(snapshot(), before, 'loading changes nothing on disk');

    // The same visible warning reaches the system prompt.
    const [, env] = buildSystemPrompt({
      cwd: '/w',
      platform: 'linux',
      date: '2026-01-01',
      memory: memorySystemSlot(index),
    });
    assert.match(env.text, /WARNING: MEMORY\.md is over its 200-line limit .* lines 201-1000 were not loaded/);
  });

  it('cuts by bytes too, and warns the writer near the cap before anything is cut', async () => {
    write('MEMORY.md', `${Array.from({ length: 185 }, (_, i) => `- [T${i}](t${i}.md)`).join('\n')}\n`);
    const near = await loadMemoryIndex(dir);
    assert.equal(near.loadedLines, 185);
    assert.match(near.text, /NOTE: MEMORY\.md is close to its limit \(185\/200 lines/);

    write(
      'MEMORY.md',
      `${Array.from({ length: 50 }, (_, i) => `- [T${i}](t${i}.md) — ${'h'.repeat(1000)}`).join('\n')}\n`,
    );
    const big = await loadMemoryIndex(dir);
    assert.equal(big.loadedLines, 24);
    assert.ok(Buffer.byteLength(big.text.split('\n\nWARNING')[0]) <= 25_000);
    assert.ok(big.warnings.some((w) => /over its 25 KB limit/.test(w)));
  });

  it('reports broken YAML, a binary file and a missing file once each, and keeps loading', async () => {
    write(
      'MEMORY.md',
      '- [Broken](broken.md) — yaml\n- [Gone](gone.md) — deleted\n- [Gone again](gone.md) — twice\n- [Picture](pic.md)\n- [Escape](../outside.md)\n',
    );
    write('broken.md', '---\nname: [oops\ntype: feedback\n---\nKeep me.\n');
    write('pic.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    write('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]));
    write('notes.txt', 'not markdown');
    const before = snapshot();
    const index = await loadMemoryIndex(dir);
    const byFile = new Map(index.entries.map((e) => [e.title, e]));
    assert.equal(byFile.get('Broken')?.missing, false);
    assert.equal(byFile.get('Broken')?.type, 'feedback');
    assert.equal(byFile.get('Gone')?.missing, true);
    assert.equal(byFile.get('Gone')?.tokens, null);
    assert.equal(byFile.get('Picture')?.missing, true);
    assert.equal(byFile.get('Escape')?.missing, true);
    const w = index.warnings;
    assert.equal(new Set(w).size, w.length, 'no repeats');
    assert.equal(w.filter((x) => x.startsWith('broken.md: front matter is not valid YAML')).length, 1);
    assert.equal(w.filter((x) => /gone\.md, which does not exist/.test(x)).length, 2, 'each line is its own problem');
    assert.equal(w.filter((x) => /lines 2 and 3 both link to gone\.md/.test(x)).length, 1);
    assert.equal(w.filter((x) => x === 'pic.md is a binary file; skipped').length, 1);
    assert.equal(w.filter((x) => x === 'image.png is a binary file; skipped').length, 1);
    assert.equal(w.filter((x) => x === 'notes.txt is not a Markdown file; ignored').length, 1);
    assert.equal(w.filter((x) => /\.\.\/outside\.md, which is not a topic file/.test(x)).length, 1);
    assert.equal(w.length, 8);
    assert.deepEqual(snapshot(), before, 'nothing is lost or rewritten');
  });

  it('drops only the line with a NUL byte and loads the rest of the index (issue #13)', async () => {
    write(
      'MEMORY.md',
      Buffer.from('- [A](a.md) — first\n- [Bad](bad\0.md) — broken\u0000line\n- [B](b.md) — second\n'),
    );
    write('a.md', topic('user', 'alpha'));
    write('b.md', topic('project', 'beta'));
    const index = await loadMemoryIndex(dir);
    assert.equal(index.exists, true);
    assert.deepEqual(
      index.entries.map((e) => [e.file, e.missing]),
      [
        ['a.md', false],
        ['b.md', false],
      ],
    );
    assert.equal(index.text, '- [A](a.md) — first\n- [B](b.md) — second');
    assert.ok(
      index.warnings.some((w) => /line 2 .*NUL/.test(w)),
      index.warnings.join('\n'),
    );
  });

  it('reads a topic file whose name holds a % (issue #13)', async () => {
    for (const file of ['100%.md', 'a%41b.md', 'x%2Fy.md', '%E2%82%AC.md']) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir);
      await writeMemory(dir, {
        file,
        title: 'Sale',
        hook: 'discount',
        description: 'discount',
        type: 'project',
        body: 'Half price.',
        provenance: { originSessionId: 's', originMessageId: 'm' },
      });
      const index = await loadMemoryIndex(dir);
      assert.deepEqual(
        index.entries.map((e) => [e.file, e.missing]),
        [[file, false]],
        file,
      );
      assert.deepEqual(index.unindexed, [], file);
      assert.deepEqual(index.warnings, [], file);
      const recalled = await recallForPrompt(dir, 'is there a discount sale', []);
      assert.deepEqual(
        recalled.files.map((f) => f.file),
        [file],
        file,
      );
      await setIndexEntry(dir, { title: 'Sale 2', file, hook: 'still' });
      assert.equal(
        fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').trim().split('\n').length,
        1,
        `${file}: updated in place, not duplicated`,
      );
      await removeEntry(dir, file);
      assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), '', `${file}: its line can be removed`);
    }
  });

  it('gives an empty result for a folder that does not exist', async () => {
    const index = await loadMemoryIndex(path.join(dir, 'nope'));
    assert.deepEqual(
      [index.exists, index.entries, index.unindexed, index.warnings, index.text],
      [false, [], [], [], ''],
    );
  });
});
