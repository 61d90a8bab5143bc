#!/usr/bin/env node
// `npm run test:desktop`: the same integration suite in a desktop VS Code downloaded by
// @vscode/test-electron (needs network access to VS Code's download site, so not used in CI here).
// Tests marked [ui] need the browser-side UI bridge of test/host/runHost.mjs and are left out.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
try {
  await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'dist', 'test', 'integration', 'index'),
    launchArgs: [path.join(root, 'test', 'fixtures', 'workspace'), '--disable-extensions', '--disable-workspace-trust'],
    extensionTestsEnv: { ENGRAM_TEST_EXCLUDE: '[ui]' },
  });
} catch (error) {
  console.error('desktop integration tests failed:', error);
  process.exit(1);
}
