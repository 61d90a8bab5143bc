// A small project with a real git history and a memory folder written at its first commit, labelled
// with which memories the later commits made stale. Used by the stale-reference test (what is flagged,
// and why) and by the memoryHealth benchmark (precision and recall over these labels). The labels were
// written from the history, not from the checker's output; two cases are known to be hard for a
// word search (a function still named in a test's comment, a renamed make target named in prose).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface LabelledMemory {
  file: string;
  text: string;
  /** Truly stale at the last commit (something it names is gone). */
  stale: boolean;
  /** The references that went stale (for the test's messages). */
  staleRefs: string[];
}

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

function git(root: string, ...args: string[]): void {
  execFileSync('git', args, { cwd: root, stdio: 'ignore' });
}

function commit(root: string, message: string): void {
  git(root, 'add', '-A');
  git(root, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', message);
}

const PACKAGE = (lint: string): string =>
  `${JSON.stringify({ name: 'demo', scripts: { build: 'tsc', [lint]: 'eslint .', test: 'node --test', dev: 'vite' } }, null, 2)}\n`;

/** Builds the repository in `root` (history of six commits) and returns the memories written at the first. */
export function buildStaleHistory(root: string): LabelledMemory[] {
  git(root, 'init', '-q', '-b', 'main');
  write(root, 'package.json', PACKAGE('lint'));
  write(root, 'Makefile', 'build:\n\tdocker build .\n\ndeploy: build\n\t./scripts/release.sh\n');
  write(root, '.gitignore', 'dist/\n.env\n');
  write(root, '.env.example', 'API_KEY=\n');
  write(
    root,
    'src/auth/session.ts',
    'export function createSession() { return new SessionStore(); }\nexport class SessionStore {\n  open() {}\n}\n',
  );
  write(root, 'src/auth/token.ts', 'export function refreshToken() {}\n');
  write(root, 'src/auth/errors.ts', 'export function onAuthError() {}\n');
  write(root, 'src/util/format.ts', 'export function formatDate() {}\nexport function legacyFormat() {}\n');
  write(root, 'src/config.ts', "export const keys = ['app.session.timeout'];\nexport function parseConfig() {}\n");
  write(root, 'test/e2e/login.e2e.ts', '// calls onAuthError() when the login fails\n');
  write(root, 'scripts/release.sh', '#!/bin/sh\necho release\n');
  write(root, 'docs/setup.md', 'Run `npm run lint`. Use legacyFormat for old dates.\n');
  write(root, 'CHANGELOG.md', '- refreshToken added\n');
  commit(root, 'first');

  git(root, 'mv', 'src/auth/session.ts', 'src/auth/sessions.ts');
  commit(root, 'rename the session module');
  git(root, 'rm', '-q', 'src/auth/token.ts');
  commit(root, 'tokens are refreshed by the server now');
  write(root, 'src/util/format.ts', 'export function formatDate() {}\n');
  write(root, 'src/auth/errors.ts', 'export function handleAuthError() {}\n');
  commit(root, 'drop legacyFormat; rename the auth error hook');
  write(root, 'package.json', PACKAGE('check'));
  write(root, 'Makefile', 'build:\n\tdocker build .\n\nship: build\n\t./deploy.sh\n');
  write(root, 'src/config.ts', "export const keys = ['app.session.timeout'];\nexport function loadConfig() {}\n");
  commit(root, 'lint is check; deploy is ship; parseConfig is loadConfig');
  git(root, 'rm', '-q', 'scripts/release.sh');
  write(root, 'deploy.sh', '#!/bin/sh\necho ship\n');
  commit(root, 'release script replaced');
  return MEMORIES;
}

const m = (file: string, stale: string[], body: string): LabelledMemory => ({
  file,
  stale: stale.length > 0,
  staleRefs: stale,
  text: `---\nname: ${file}\ndescription: ${body.split('\n')[0]}\ntype: project\n---\n\n${body}\n`,
});

const MEMORIES: LabelledMemory[] = [
  m('project_session.md', ['src/auth/session.ts'], 'Session logic lives in `src/auth/session.ts`.'),
  m(
    'project_tokens.md',
    ['src/auth/token.ts', 'refreshToken'],
    'Call `refreshToken()` before API calls (see src/auth/token.ts).',
  ),
  m(
    'feedback_dates.md',
    ['legacyFormat'],
    'Dates for the old API go through `legacyFormat()`, the rest through `formatDate()`.',
  ),
  m('feedback_lint.md', ['npm run lint'], 'Always run `npm run lint` before committing.'),
  m('project_deploy.md', ['make deploy'], 'Deploy with `make deploy` (it builds the image first).'),
  m('project_release.md', ['./scripts/release.sh'], 'Releases are cut with `./scripts/release.sh`.'),
  m('project_config.md', ['parseConfig'], 'Configuration is read by `parseConfig()` in src/config.ts.'),
  // Hard: the hook was renamed, but a test's comment still says onAuthError().
  m('project_auth_errors.md', ['onAuthError'], 'Auth failures go through the `onAuthError` hook.'),
  m(
    'project_store.md',
    [],
    'Sessions are created with `createSession()` and kept in a `SessionStore`; `SessionStore.open` opens it.',
  ),
  m('feedback_build.md', [], 'Build output goes to dist/; never edit `dist/bundle.js` by hand. Secrets go in `.env`.'),
  m(
    'feedback_commands.md',
    [],
    'Use `npm test` and `npm run build`; `make build` builds the image; `yarn dev` serves.',
  ),
  m(
    'reference_format.md',
    [],
    'Formatting helpers: src/util/format.ts. Background: https://example.com/docs/format.md',
  ),
  m('user_prefs.md', [], 'Prefers tabs, node 20 (version 1.2.3 pinned), e.g. and/or in prose; we use pnpm elsewhere.'),
  m(
    'feedback_examples.md',
    [],
    'Name helpers like this:\n\n```ts\nconst s = makeThingFactory();\n```\n\nPersonal notes are in ~/notes/demo.md.',
  ),
  m(
    'feedback_no_moment.md',
    [],
    'Never call `moment()` for dates: use `formatDate()` instead of `dayjsFormat()`. The old `src/util/dates.ts` was removed.',
  ),
  m(
    'project_layout.md',
    [],
    'End-to-end tests live under `test/e2e/` (files named `*.e2e.ts`); the setting `app.session.timeout`; the key in `API_KEY`.',
  ),
];
