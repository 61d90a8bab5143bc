#!/usr/bin/env node
// Layer rules, checked on every `npm test`:
//  - nothing under src/core imports `vscode` (the engine runs and is tested in plain Node);
//  - src/protocol imports nothing but types-free TS (it is shared by the host and the webviews);
//  - webview code never imports host code except src/protocol.
// The TypeScript scanner lists import, export-from, require() and import() specifiers, so a string or a
// comment that merely mentions 'vscode' is fine.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ts = createRequire(import.meta.url)('typescript');

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.(ts|mts|cts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

function imports(file) {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

const problems = [];
for (const file of files('src/core')) {
  for (const spec of imports(file)) {
    if (spec === 'vscode' || spec.startsWith('vscode/')) problems.push(`${file}: src/core must not import '${spec}'`);
    const target = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : '';
    if (target && /[\\/]src[\\/](vscode|extension)/.test(path.relative(process.cwd(), target))) {
      problems.push(`${file}: src/core must not import the VS Code adapters ('${spec}')`);
    }
  }
}
for (const file of files('src/protocol')) {
  for (const spec of imports(file)) problems.push(`${file}: src/protocol must stay dependency-free, found '${spec}'`);
}
for (const file of files('webview')) {
  for (const spec of imports(file)) {
    if (!spec.startsWith('.')) continue;
    const rel = path.relative(process.cwd(), path.resolve(path.dirname(file), spec));
    if (rel.startsWith('src') && !rel.startsWith(path.join('src', 'protocol'))) {
      problems.push(`${file}: webview code may only import src/protocol from the host side, found '${spec}'`);
    }
  }
}
if (problems.length) {
  console.error(`lint: ${problems.length} layer violation(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`lint: layers ok (${files('src/core').length} core files, ${files('webview').length} webview files)`);
