// Every link of the front page (README.md), CONTRIBUTING.md and docs/*.md leads somewhere: a relative link or
// image names a file of the repository, an anchor names a heading of its target file (slugs as GitHub makes
// them, a repeated heading getting -1, -2, ...), and an http(s) link is a well-formed URL. The checker is
// tried on broken links of its own first, so a checker that finds nothing cannot pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../../..');

/** The lines of a Markdown text outside fenced code blocks; inline code spans blanked out unless `keepCode`. */
function proseLines(text: string, keepCode = false): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (!fence) out.push(keepCode ? line : line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length)));
  }
  return out;
}

/** GitHub's anchor for a heading's text: links and emphasis read as their text, lowercase, punctuation gone, spaces to '-'. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a Markdown file's headings give, repeated ones numbered as GitHub numbers them. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text, true)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The link targets of a Markdown text: `[text](target)` and `![alt](target)`, outside code. */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    for (const m of line.matchAll(/!?\[[^\]]*\]\(([^)]*)\)/g)) {
      targets.push(
        m[1]
          .replace(/\s+"[^"]*"\s*$/, '')
          .trim()
          .replace(/^<(.*)>$/, '$1'),
      );
    }
  }
  return targets;
}

/** What is wrong with the links of `file` (a path in the repository) whose text is `text`; empty when nothing. */
function linkProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (!/^https?:/i.test(target)) continue;
      let ok = false;
      try {
        const url = new URL(target);
        ok = url.hostname.includes('.') && !/\s/.test(target);
      } catch {}
      if (!ok) problems.push(`${file}: ${target}: not a well-formed URL`);
      continue;
    }
    const hash = target.indexOf('#');
    const filePart = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved =
      filePart === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), filePart);
    const shown = path.relative(root, resolved);
    if (!fs.existsSync(resolved)) {
      problems.push(`${file}: ${target}: ${shown} does not exist`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith('.md')) continue;
    const targetText = filePart === '' ? text : fs.readFileSync(resolved, 'utf8');
    if (!anchorsOf(targetText).has(anchor))
      problems.push(`${file}: ${target}: no heading of ${shown} has the anchor #${anchor}`);
  }
  return problems;
}

/** The Markdown files a reader meets: the front page, the house rules and every page of docs/. */
function documents(): string[] {
  const docs = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

describe('documentation links', () => {
  it('slugs headings as GitHub does, numbering repeated ones', () => {
    assert.equal(slug('MCP servers in `engram -p`'), 'mcp-servers-in-engram--p');
    assert.equal(slug("Share Engram's memory with other agents"), 'share-engrams-memory-with-other-agents');
    assert.equal(slug('CLAUDE.md and AGENTS.md'), 'claudemd-and-agentsmd');
    assert.equal(slug('What the next message costs (the cost line)'), 'what-the-next-message-costs-the-cost-line');
    assert.equal(slug('记住 the [link](x.md) *here*'), '记住-the-link-here');
    assert.deepEqual(
      [...anchorsOf('# Top\n## Notes\n```sh\n# not a heading\n```\n## Notes\n### Notes\n')],
      ['top', 'notes', 'notes-1', 'notes-2'],
    );
  });

  it('finds a missing file, a missing anchor and a malformed URL, and passes good links', () => {
    const broken = [
      '[gone](docs/no-such-page.md)',
      '[bad anchor](docs/memory.md#no-such-heading)',
      '[same page](#not-here)',
      '![picture](media/readme/no-such-picture.png)',
      '[url](https://exa mple.com/x)',
      '[url2](http://localhost-without-a-dot)',
    ].join('\n');
    const problems = linkProblems('README.md', `# Here\n${broken}\n`);
    assert.equal(problems.length, 6, problems.join('\n'));
    assert.match(problems[0], /docs\/no-such-page\.md does not exist/);
    assert.match(problems[1], /no heading of docs\/memory\.md has the anchor #no-such-heading/);
    assert.match(problems[2], /no heading of README\.md has the anchor #not-here/);
    const good = [
      '[memory](docs/memory.md#team-memory)',
      '[here](#here)',
      '[up](../README.md)',
      '`[in code](nowhere.md)`',
      '```\n[in a fence](nowhere.md)\n```',
      '[site](https://modelcontextprotocol.io)',
    ];
    assert.deepEqual(
      linkProblems('README.md', `# Here\n${good.slice(0, 2).join('\n')}\n${good.slice(3).join('\n')}`),
      [],
    );
    assert.deepEqual(linkProblems('docs/x.md', good[2]), []);
  });

  it('every link of README.md, CONTRIBUTING.md and docs/*.md resolves', () => {
    const files = documents();
    assert.ok(files.length > 3, `docs/ holds the depth of the README: ${files.join(', ')}`);
    const problems = files.flatMap((f) => linkProblems(f, fs.readFileSync(path.join(root, f), 'utf8')));
    assert.deepEqual(problems, []);
  });

  it('the README links to every page of docs/', () => {
    const linked = new Set(
      linkTargets(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).map((t) => t.split('#')[0]),
    );
    assert.deepEqual(
      documents().filter((f) => f.startsWith('docs/') && !linked.has(f)),
      [],
    );
  });
});
