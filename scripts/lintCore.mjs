#!/usr/bin/env node
// Layer rules, checked on every `npm test` (and `npm run lint`):
//  - only src/vscode and src/extension.ts import `vscode`; the engine (src/core), the CLI and the test
//    server run in plain Node;
//  - each top-level part of src/ (and webview/, and each package under packages/) imports only the parts
//    listed in AREA_IMPORTS: core never imports its hosts, src/protocol is shared by the extension host,
//    the webviews and the inspector's view models in core;
//  - src/protocol imports nothing but its own modules (both sides of the webview boundary load it);
//  - inside src/core, a folder imports only its own files and folders of a lower layer (CORE_LAYERS);
//  - the hosts (src/vscode with src/extension.ts; src/cli) import core only through src/core/host/, and
//    each at most MAX_HOST_DOOR_MODULES of its modules: a host that needs more is doing engine work;
//  - no import cycle between files under src/, webview/ or packages/.
// The TypeScript scanner lists import, export-from, require() and import() specifiers, so a string or a
// comment that merely mentions a module is fine. Type-only imports count like any other: a type ties a
// file to its layer just as much, and a cycle made of types still means the files cannot change alone.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ts = createRequire(import.meta.url)('typescript');

/**
 * The layers of src/core, lowest first. Files directly in src/core (thresholds.ts, version.ts, ports.ts,
 * ...) are `.`, the bottom. Folders on one line are peers and must not import each other.
 */
const CORE_LAYERS = [
  ['.'],
  ['fs'],
  ['security'], // secret scanning and the /proc files no tool reads; tools, agent and memory use it
  ['conversation'],
  ['tokens', 'llm'],
  ['settings'], // its defaults come from llm/modelConfig.ts
  ['checkpoints'], // the shadow git of each workspace: what each turn changed, and code rewinds
  ['tools'],
  ['mcp'], // the MCP client: config, connections, server tools adapted to the Tool contract
  ['agent'],
  ['memory'],
  ['compaction'],
  ['inspection'],
  ['session'],
  ['host'], // the host API: the one door src/vscode, src/extension.ts and src/cli reach the engine through
];

/** What each top-level part may import besides itself. */
const AREA_IMPORTS = {
  core: ['protocol'], // only from PROTOCOL_FROM_LAYER up
  protocol: [],
  demoModel: ['core'],
  testServer: ['core', 'demoModel'], // it serves the demo model when asked to
  cli: ['core', 'testServer'],
  vscode: ['core', 'protocol', 'testServer'],
  'extension.ts': ['core', 'protocol', 'testServer', 'vscode'],
  'packages/team-server': ['core'], // the wire format (teamProtocol.ts) and the secret scan
  webview: ['protocol'],
};

/**
 * The lowest core layer that may import src/protocol: the inspector's view models are built in core in
 * the protocol's shapes, but the engine below them knows nothing of webviews.
 */
const PROTOCOL_FROM_LAYER = 'inspection';

/**
 * The hosts, each named by the parts it is made of: they reach the engine only through src/core/host/
 * (HOST_DOOR), and each through at most MAX_HOST_DOOR_MODULES of its modules, so what a host may ask
 * of the engine stays one short list whose contracts are written down.
 */
const HOSTS = {
  'the extension (src/vscode, src/extension.ts)': ['vscode', 'extension.ts'],
  'the CLI (src/cli)': ['cli'],
};
const HOST_DOOR = path.join('src', 'core', 'host');
const MAX_HOST_DOOR_MODULES = 10;
const hostOf = new Map(Object.entries(HOSTS).flatMap(([host, areas]) => areas.map((a) => [a, host])));

/** The parts allowed to import the `vscode` module (it exists only inside the extension host). */
const VSCODE_HOSTS = new Set(['vscode', 'extension.ts']);

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs)$/;
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs'];

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.name === 'node_modules') return [];
    return e.isDirectory() ? files(p) : SOURCE.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function imports(file) {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** The source file a relative specifier names (as the bundler resolves it), or null. */
function resolve(from, spec, known) {
  if (!spec.startsWith('.')) return null;
  const base = path.join(path.dirname(from), spec);
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  const candidates = [base, ...EXTENSIONS.map((e) => stem + e), ...EXTENSIONS.map((e) => path.join(base, `index${e}`))];
  return candidates.find((c) => known.has(c)) ?? null;
}

/** Which top-level part a path (relative to the repository) belongs to, or null outside src/ and webview/. */
function areaOf(rel) {
  const parts = rel.split(path.sep);
  if (parts[0] === 'webview') return 'webview';
  if (parts[0] === 'packages' && parts.length >= 2) return `packages/${parts[1]}`;
  return parts[0] === 'src' && parts.length >= 2 ? parts[1] : null;
}

/** How messages name a part: `src/core`, but `webview` and `packages/team-server` as they are. */
function placeOf(area) {
  return area === 'webview' || area.startsWith('packages/') ? area : `src/${area}`;
}

/** The folder under src/core a file belongs to (`.` for files directly in it). */
function coreFolderOf(rel) {
  const parts = rel.split(path.sep);
  return parts.length === 3 ? '.' : parts[2];
}

const layerOf = new Map(CORE_LAYERS.flatMap((names, i) => names.map((n) => [n, i])));

function layerProblem(file, spec, target) {
  const from = coreFolderOf(file);
  const to = coreFolderOf(target);
  if (from === to) return null;
  for (const folder of [from, to]) {
    if (!layerOf.has(folder))
      return `src/core/${folder} has no place in the layer order (CORE_LAYERS in scripts/lintCore.mjs)`;
  }
  const name = (f) => (f === '.' ? 'the files directly in src/core' : `src/core/${f}`);
  if (layerOf.get(to) === layerOf.get(from)) return `${name(from)} must not import its peer ${name(to)} ('${spec}')`;
  if (layerOf.get(to) > layerOf.get(from))
    return `${name(from)} must not import the higher layer ${name(to)} ('${spec}')`;
  return null;
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
function cycles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** One shortest way round a component, from its first file back to it: what to show a reader. */
function loopThrough(component, graph) {
  const members = new Set(component);
  const start = component[0];
  const cameFrom = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v)) {
      if (w === start) {
        const loop = [start];
        for (let u = v; u !== start; u = cameFrom.get(u)) loop.splice(1, 0, u);
        return [...loop, start];
      }
      if (members.has(w) && !cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

const all = [...files('src'), ...files('webview'), ...files('packages')]
  .map((f) => path.relative(process.cwd(), path.resolve(f)))
  .sort();
const known = new Set(all);
const graph = new Map(all.map((f) => [f, []]));
const problems = [];
/** The src/core/host modules each host imports. */
const doorModules = new Map(Object.keys(HOSTS).map((host) => [host, new Set()]));

for (const file of all) {
  const area = areaOf(file);
  for (const spec of imports(file)) {
    if ((spec === 'vscode' || spec.startsWith('vscode/')) && !VSCODE_HOSTS.has(area)) {
      problems.push(`${file}: ${placeOf(area)} must not import '${spec}'`);
    }
    if (area === 'protocol' && !(spec.startsWith('./') && !spec.slice(2).includes('/'))) {
      problems.push(`${file}: src/protocol must stay dependency-free, found '${spec}'`);
      continue;
    }
    if (!spec.startsWith('.')) continue;
    const targetRel = path.relative(process.cwd(), path.resolve(path.dirname(file), spec));
    const targetArea = areaOf(targetRel);
    const target = resolve(file, spec, known);
    if (target) graph.get(file).push(target);
    if (targetArea === null || targetArea === area) {
      if (area === 'core' && targetArea === 'core') {
        const problem = layerProblem(file, spec, target ?? targetRel);
        if (problem) problems.push(`${file}: ${problem}`);
      }
      continue;
    }
    const host = targetArea === 'core' ? hostOf.get(area) : undefined;
    if (host) {
      const through = target ?? targetRel;
      if (path.dirname(through) === HOST_DOOR) doorModules.get(host).add(through);
      else
        problems.push(
          `${file}: ${host} must reach the engine through the host API in ${HOST_DOOR}/, not '${spec}' ` +
            '(add what the host needs there, as a documented host operation)',
        );
    }
    if ((AREA_IMPORTS[area] ?? []).includes(targetArea)) {
      const folder = area === 'core' && targetArea === 'protocol' ? coreFolderOf(file) : null;
      if (folder !== null && !(layerOf.get(folder) >= layerOf.get(PROTOCOL_FROM_LAYER))) {
        problems.push(
          `${file}: only src/core/${PROTOCOL_FROM_LAYER} and the layers above it may import src/protocol ('${spec}')`,
        );
      }
    } else if (area === 'webview') {
      problems.push(`${file}: webview code may only import src/protocol from the host side, found '${spec}'`);
    } else if (area === 'core' && VSCODE_HOSTS.has(targetArea)) {
      problems.push(`${file}: src/core must not import the VS Code adapters ('${spec}')`);
    } else {
      problems.push(`${file}: ${placeOf(area)} must not import ${placeOf(targetArea)} ('${spec}')`);
    }
  }
}

for (const [host, modules] of doorModules) {
  if (modules.size > MAX_HOST_DOOR_MODULES)
    problems.push(
      `${host} imports ${modules.size} host API modules (${[...modules].sort().join(', ')}); ` +
        `at most ${MAX_HOST_DOOR_MODULES}: a host that needs more is doing the engine's work`,
    );
}

for (const component of cycles(graph)) {
  const loop = loopThrough(component, graph);
  const more = component.length > loop.length - 1 ? ` (${component.length} files in the circle in all)` : '';
  problems.push(`import cycle: ${loop.join(' -> ')}${more}`);
}

if (problems.length) {
  console.error(`lint: ${problems.length} layer violation(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const coreCount = all.filter((f) => areaOf(f) === 'core').length;
console.log(
  `lint: layers ok, no import cycles (${coreCount} core files, ${all.length} files in src/, webview/ and packages/)`,
);
