// One build script, a shared base and one context per target:
//   extension host (CommonJS for Node, `vscode` external), the lazily loaded tokenizer chunk,
//   the command-line entry, the webviews (browser IIFE), and the integration tests (run inside VS Code).
// Flags: --watch rebuilds on change; --production minifies and drops source maps and tests.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const base = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'warning',
  legalComments: 'none',
};

// Lazy chunks: `require('engram-lazy:NAME')` becomes a require of ./NAME.js beside the bundle, loaded on
// first use only, so activation never parses them: the tokenizer (js-tiktoken and its ~1 MB rank table)
// the engine (agent, Anthropic SDK, test server) and the cloud clients (Bedrock, Vertex AI, Foundry, with
// the AWS, Google and Azure credential libraries), which a session on the Anthropic API never loads.
const lazyChunks = {
  name: 'lazy-chunks',
  setup(build) {
    build.onResolve({ filter: /^engram-lazy:\w+$/ }, (args) => ({
      path: `./${args.path.slice('engram-lazy:'.length)}.js`,
      external: true,
    }));
  },
};

// secretlint's profiler puts ~100 marks per scan on the global performance timeline and keeps them, with
// an observer that copies each one, for the life of the process (~20 KB a scan); the engine scans every
// tool result, so a long session would grow without end. The bundles get a profiler that records nothing.
const quietSecretlintProfiler = {
  name: 'quiet-secretlint-profiler',
  setup(build) {
    build.onResolve({ filter: /^@secretlint\/profiler$/ }, () => ({
      path: 'secretlint-profiler',
      namespace: 'engram-stub',
    }));
    build.onLoad({ filter: /.*/, namespace: 'engram-stub' }, () => ({
      contents: 'export const secretLintProfiler = { mark() {} };',
      loader: 'js',
    }));
  },
};

// Some dependencies (tinyglobby's fdir) call createRequire(import.meta.url), which a CommonJS bundle
// leaves undefined: give them this file's URL.
const importMetaUrl = 'const __importMetaUrl = require("url").pathToFileURL(__filename).href;';
const nodeBase = {
  ...base,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  plugins: [lazyChunks, quietSecretlintProfiler],
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: importMetaUrl },
};

const integrationTests = production
  ? []
  : fs
      .readdirSync('test/integration')
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join('test/integration', f));

const targets = [
  {
    name: 'extension',
    ...nodeBase,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    // Activation cost = evaluating this bundle (banner to footer) + running activate(); VS Code's own
    // work between loading the module and calling activate() is not ours to count.
    banner: { js: `var __engramLoadStart = performance.now();\n${importMetaUrl}` },
    footer: { js: 'var __engramLoadEnd = performance.now();' },
  },
  { name: 'engine', ...nodeBase, entryPoints: ['src/vscode/engineChunk.ts'], outfile: 'dist/engine.js' },
  { name: 'tokenizer', ...nodeBase, entryPoints: ['src/core/tokens/tokenizerChunk.ts'], outfile: 'dist/tokenizer.js' },
  { name: 'clouds', ...nodeBase, entryPoints: ['src/core/llm/cloudChunk.ts'], outfile: 'dist/clouds.js' },
  {
    name: 'cli',
    ...nodeBase,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    banner: { js: `#!/usr/bin/env node\n${importMetaUrl}` },
  },
  { name: 'testServer', ...nodeBase, entryPoints: ['src/testServer/main.ts'], outfile: 'dist/testServer.js' },
  // The native SQLite addon and pg's optional native driver load from node_modules at run time.
  {
    name: 'teamServer',
    ...nodeBase,
    entryPoints: ['packages/team-server/src/main.ts'],
    outfile: 'dist/teamServer.js',
    external: ['better-sqlite3', 'pg-native'],
  },
  {
    name: 'webview',
    ...base,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    entryPoints: { chat: 'webview/chat/main.ts', inspector: 'webview/inspector/main.ts' },
    outdir: 'dist/webview',
  },
];
if (integrationTests.length > 0) {
  targets.push({
    name: 'tests',
    ...nodeBase,
    entryPoints: integrationTests,
    outdir: 'dist/test/integration',
    external: ['vscode', 'mocha'],
  });
}

// Codicons for the webviews: the font and its stylesheet are served from dist/webview (a local resource root).
function copyCodicons() {
  fs.mkdirSync('dist/webview', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) {
    fs.copyFileSync(path.join('node_modules/@vscode/codicons/dist', f), path.join('dist/webview', f));
  }
}
copyCodicons();

// --only=extension,webview builds a subset (handy while one part is being written).
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
// The extension's package (--production, `npm run package`) ships no team server: that is its own
// workspace package (packages/team-server), deployed apart, and .vscodeignore leaves it out anyway.
const wanted = (t) => (only ? only.includes(t.name) : !(production && t.name === 'teamServer'));
const selected = targets.filter(wanted).map(({ name, ...options }) => options);

const contexts = await Promise.all(selected.map((t) => esbuild.context(t)));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[esbuild] watching for changes');
} else {
  const started = Date.now();
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  console.log(
    `[esbuild] built ${selected.length} targets${production ? ' (production)' : ''} in ${Date.now() - started} ms`,
  );
}
