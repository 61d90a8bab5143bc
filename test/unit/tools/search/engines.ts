// Test support for the search engines: the ripgrep binary the @vscode/ripgrep-universal devDependency
// ships for this platform (there is no rg on PATH in CI), and both engines by name, so a test can run
// once per engine and compare.
import fs from 'node:fs';
import path from 'node:path';
import { jsSearchEngine } from '../../../../src/core/tools/search/jsEngine';
import { ripgrepSearchEngine } from '../../../../src/core/tools/search/ripgrepEngine';
import type { SearchEngine } from '../../../../src/core/tools/searchTypes';

/** The devDependency's rg for this platform; throws (the test fails) when it is missing. */
export function testRgPath(): string {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const p = path.resolve('node_modules/@vscode/ripgrep-universal/bin', `${process.platform}-${process.arch}`, exe);
  if (!fs.existsSync(p))
    throw new Error(`No ripgrep binary at ${p}: run npm install (devDependency @vscode/ripgrep-universal).`);
  return p;
}

/** Both engines, labelled, for tests that run once per engine. */
export function bothEngines(): Array<[label: string, engine: SearchEngine]> {
  return [
    ['javascript', jsSearchEngine()],
    ['ripgrep', ripgrepSearchEngine(testRgPath(), 'ripgrep (test binary)')],
  ];
}
