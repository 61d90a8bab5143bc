// A memory folder to tidy, its workspace, and the test server's scripted tidy answer (a merge, a
// rewrite of a stale entry, a deletion, and hostile changes), shared by the core and CLI tidy tests.
import fs from 'node:fs';
import path from 'node:path';
import { TIDY_TOOL_NAME } from '../../../src/core/memory/tidy/tidyPropose';
import type { TestServer } from '../../../src/testServer/anthropicTestServer';

export const topic = (name: string, body: string): string =>
  `---\nname: ${name}\ndescription: ${body.split('.')[0]}\ntype: project\n---\n\n${body}\n`;

export const MEMORIES: Record<string, string> = {
  'project_session.md': topic('Sessions', 'Sessions are stored by `saveSession` in src/auth/session.ts.'),
  'feedback_tabs.md': topic('Tabs', 'Indent with tabs, never spaces.'),
  'feedback_indent.md': topic('Indentation', 'Use tabs for indentation in every file.'),
  'project_legacy.md': topic('Legacy deploy', 'Deploy with npm run deploy-legacy from the repository root.'),
  'project_ok.md': topic('Tests', 'Run the tests with npm test.'),
};

/** The workspace and memory folder under `home`; `dir` defaults to `home/memory`. */
export function setupTidyFolder(
  home: string,
  dir = path.join(home, 'memory'),
): { ws: string; dir: string; outside: string } {
  const ws = path.join(home, 'ws');
  fs.mkdirSync(path.join(ws, 'src', 'session'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'src', 'session', 'session.ts'), 'export function saveSession() {}\n');
  fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ scripts: { test: 'node --test' } }));
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(MEMORIES)) fs.writeFileSync(path.join(dir, file), text);
  const outside = path.join(home, 'secret.md');
  fs.writeFileSync(outside, topic('Secret', 'Outside the folder.'));
  fs.symlinkSync(outside, path.join(dir, 'project_link.md'));
  const index = [...Object.keys(MEMORIES), 'project_link.md'].map((f) => `- [${f}](${f}) — about ${f}`);
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), `# Memory\n${index.join('\n')}\n`);
  return { ws, dir, outside };
}

export const REWRITE = topic('Sessions', 'Sessions are stored by `saveSession` in src/session/session.ts.');
export const MERGED = topic('Tabs', 'Indent with tabs, never spaces, in every file.');

/** Scripts the server's next answer: the tidy tool call. */
export function scriptTidy(server: Pick<TestServer, 'enqueue'>): void {
  const changes = [
    { kind: 'merge', files: ['feedback_tabs.md', 'feedback_indent.md'], content: MERGED, reason: 'Both say tabs.' },
    { kind: 'rewrite', files: ['project_session.md'], content: REWRITE, reason: 'The file moved to src/session.' },
    { kind: 'delete', files: ['project_legacy.md'], reason: 'The deploy-legacy script is gone.' },
    { kind: 'rewrite', files: ['../x.md'], content: 'pwned', reason: 'hostile' },
    { kind: 'delete', files: ['/etc/passwd'], reason: 'hostile' },
    { kind: 'delete', files: ['MEMORY.md'], reason: 'hostile' },
    { kind: 'rewrite', files: ['project_link.md'], content: 'pwned', reason: 'hostile' },
  ];
  server.enqueue({ content: [{ type: 'tool_use', name: TIDY_TOOL_NAME, input: { changes } }] });
}

/** Every file of the folder (not the tidy's own), with its bytes. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).sort()) {
    if (f.startsWith('.') || fs.lstatSync(path.join(dir, f)).isSymbolicLink()) continue;
    out[f] = fs.readFileSync(path.join(dir, f)).toString('base64');
  }
  return out;
}
