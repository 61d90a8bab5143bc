#!/usr/bin/env node
// Layer rules, checked on every `npm test`:
//  - nothing under src/core imports `vscode` (the engine runs and is tested in plain Node);
//  - src/protocol imports nothing but types-free TS (it is shared by the host and the webviews);
//  - webview code never imports host code except src/protocol.
// It reads import/require/dynamic-import specifiers, so a string that merely mentions 'vscode' is fine.
import fs from 'node:fs';
import path from 'node:path';

const IMPORT = /(?:import\s[^'"]*?from\s*|import\s*\(\s*|require\s*\(\s*|export\s[^'"]*?from\s*|import\s*)(['"])([^'"]+)\1/g;

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.(ts|mts|cts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

function imports(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(IMPORT)].map((m) => m[2]);
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
