// The big tree the search benchmark runs on (issue 35): a seeded, monorepo-shaped git workspace of
// 100,000 files and about 1.2 GB. Packages of source-like files in several languages (log-uniform sizes,
// mostly 1-30 KB, some 15 files a folder), each package with its .gitignore and, for some, ignored build output (dist/,
// coverage/); a node_modules at the root and one nested in a package; hidden folders (.github, .cache,
// .storybook); binary assets; and a few generated files far over any search size limit (20-50 MB). A word,
// SEARCH_WORD, is planted in about 1% of the files (searched and ignored ones alike, and in a big file).
// The tree is made once into a cache folder outside the repository, keyed by the seed and SHAPE_VERSION,
// and reused while its marker says it is complete and a sample of its files still has the recorded sizes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seededRandom } from './pythonProject';

/** Bump when the generator changes: a tree of another version is made again. */
const SHAPE_VERSION = 2;
/**
 * The tree's seed: 35, the one the engines were tuned on; ENGRAM_SEARCH_TREE_SEED gives a held-out tree of
 * the same shape (another seed, another cached tree).
 */
const SEED = Number(process.env.ENGRAM_SEARCH_TREE_SEED) || 35;
const TOTAL_FILES = 100_000;
/** The word the Grep benchmark looks for. */
export const SEARCH_WORD = 'retryBudget';
/** The glob the Glob benchmark lists. */
export const SEARCH_GLOB = '**/*.tsx';

export interface TreeShape {
  root: string;
  files: number;
  bytes: number;
  /** Files a .gitignore leaves out (node_modules, build output; counted by git: not tracked). */
  ignoredFiles: number;
  hiddenFiles: number;
  binaryFiles: number;
  /** Files over 20 MB, relative paths with their sizes. */
  bigFiles: Array<{ path: string; bytes: number }>;
  /** Files holding SEARCH_WORD, ignored and big ones included. */
  plantedFiles: number;
  /** How long it took to make (the first run), in seconds. */
  generatedSeconds: number;
  /** This run reused it. */
  reused?: boolean;
}

interface Marker extends TreeShape {
  version: number;
  sample: Array<[string, number]>;
}

const WORDS = (
  'value count item list map node user order price total index state event token range buffer file path name ' +
  'key entry cache query result error config option handle parse render update create remove fetch load store ' +
  'check build account invoice session schema report stream socket header payload widget layout theme route'
).split(' ');

type Lang = 'ts' | 'tsx' | 'js' | 'py' | 'go' | 'rs' | 'java' | 'md' | 'json' | 'css' | 'yml';

/** Makes varied code-like lines per language from a seeded generator, then files out of them. */
class TextMaker {
  private readonly pools = new Map<Lang, string[]>();
  constructor(private readonly random: () => number) {}

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)] as T;
  }

  ident(camel = true): string {
    const parts = Array.from({ length: 1 + Math.floor(this.random() * 3) }, () => this.pick(WORDS));
    const joined = camel
      ? parts.map((w, i) => (i ? (w[0]?.toUpperCase() ?? '') + w.slice(1) : w)).join('')
      : parts.join('_');
    return joined + (this.random() < 0.3 ? String(Math.floor(this.random() * 100)) : '');
  }

  private words(n: number): string {
    return Array.from({ length: n }, () => this.pick(WORDS)).join(' ');
  }

  private line(lang: Lang): string {
    const r = this.random();
    const ind = '    '.repeat(Math.floor(this.random() * 3));
    const [a, b, c] = [this.ident(), this.ident(), this.ident()];
    const n = Math.floor(this.random() * 10_000);
    switch (lang) {
      case 'ts':
      case 'tsx':
      case 'js':
        if (r < 0.15) return `${ind}// ${this.words(4 + Math.floor(this.random() * 8))}`;
        if (r < 0.25)
          return `${ind}export function ${a}(${b}: number, ${c}: string): ${this.pick(['void', 'string'])} {`;
        if (r < 0.3 && lang === 'tsx')
          return `${ind}<${this.pick(['div', 'span', 'Button'])} className="${b}">{${c}}</div>`;
        if (r < 0.4) return `${ind}}`;
        return `${ind}${this.pick(['const', 'let', 'return', 'await'])} ${a} = ${b}(${n}, '${c}') + ${c}.${a};`;
      case 'py':
        if (r < 0.15) return `${ind}# ${this.words(4 + Math.floor(this.random() * 8))}`;
        if (r < 0.3) return `${ind}def ${this.ident(false)}(self, ${this.ident(false)}: int) -> str:`;
        return `${ind}${this.ident(false)} = ${this.ident(false)}(${n}, "${this.ident(false)}")`;
      case 'go':
        if (r < 0.15) return `${ind}// ${this.words(4 + Math.floor(this.random() * 8))}`;
        if (r < 0.3) return `func (s *${a}) ${b}(${c} int) (string, error) {`;
        if (r < 0.4) return `${ind}if err != nil {\n${ind}\treturn "", err\n${ind}}`;
        return `${ind}${a} := ${b}(${n}, "${c}")`;
      case 'rs':
        if (r < 0.15) return `${ind}/// ${this.words(4 + Math.floor(this.random() * 8))}`;
        if (r < 0.3) return `pub fn ${this.ident(false)}(${this.ident(false)}: &str) -> Result<u64, Error> {`;
        return `${ind}let ${this.ident(false)} = ${this.ident(false)}(${n})?;`;
      case 'java':
        if (r < 0.15) return `${ind}// ${this.words(4 + Math.floor(this.random() * 8))}`;
        if (r < 0.3) return `${ind}public ${this.pick(['void', 'String', 'int'])} ${a}(int ${b}) {`;
        return `${ind}${this.pick(['final var', 'int', 'String'])} ${a} = ${b}.${c}(${n});`;
      case 'md':
        if (r < 0.1) return `## ${this.words(3)}`;
        if (r < 0.2) return `- \`${a}\` ${this.words(6)}`;
        return this.words(10 + Math.floor(this.random() * 10));
      case 'json':
        return `  "${a}": { "${b}": ${n}, "${c}": "${this.words(3)}" },`;
      case 'css':
        return r < 0.2
          ? `.${this.ident(false)} {`
          : r < 0.35
            ? '}'
            : `  ${this.pick(['margin', 'color', 'padding'])}: ${n % 64}px;`;
      case 'yml':
        return `${ind}${this.ident(false)}: ${this.pick([String(n), this.ident(), 'true'])}`;
    }
  }

  /** About `bytes` of text in `lang`; with `plant`, one line names SEARCH_WORD. */
  text(lang: Lang, bytes: number, plant: boolean): string {
    let pool = this.pools.get(lang);
    if (!pool) {
      pool = Array.from({ length: 6000 }, () => this.line(lang));
      this.pools.set(lang, pool);
    }
    const lines: string[] = [];
    let size = 0;
    while (size < bytes) {
      const l = pool[Math.floor(this.random() * pool.length)] as string;
      lines.push(l);
      size += l.length + 1;
    }
    if (plant) lines.splice(Math.floor(this.random() * lines.length), 0, `  ${SEARCH_WORD}: ${this.ident()},`);
    return `${lines.join('\n')}\n`;
  }
}

/** Where the tree lives: under the system's temp folder (or ENGRAM_BENCH_CACHE), never in the repository. */
export function treeDir(): string {
  const base = process.env.ENGRAM_BENCH_CACHE ?? path.join(os.tmpdir(), 'engram-bench-cache');
  return path.join(base, `search-tree-s${SEED}-v${SHAPE_VERSION}-${TOTAL_FILES}`);
}

/** The tree, made now if there is no intact one. */
export function ensureTree(log: (line: string) => void = () => {}): TreeShape {
  const dir = treeDir();
  const markerFile = path.join(dir, 'marker.json');
  const root = path.join(dir, 'tree');
  const marker = readMarker(markerFile);
  if (marker && marker.version === SHAPE_VERSION && intact(root, marker)) {
    const { sample: _, version: __, ...shape } = marker;
    return { ...shape, root, reused: true };
  }
  log(`making the ${TOTAL_FILES.toLocaleString('en-US')}-file tree in ${root} (once; about a minute or more)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const started = Date.now();
  const shape = generate(root);
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'generated');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, maxBuffer: 2 ** 28 })
    .toString()
    .split('\0');
  shape.ignoredFiles = shape.files - (tracked.length - 1);
  shape.generatedSeconds = Math.round((Date.now() - started) / 100) / 10;
  const all = listAll(root);
  const random = seededRandom(SEED + 1);
  const sample = Array.from({ length: 200 }, () => all[Math.floor(random() * all.length)] as string);
  const next: Marker = {
    ...shape,
    version: SHAPE_VERSION,
    sample: sample.map((f) => [f, fs.statSync(path.join(root, f)).size]),
  };
  fs.writeFileSync(`${markerFile}.tmp`, JSON.stringify(next));
  fs.renameSync(`${markerFile}.tmp`, markerFile);
  return { ...shape, root };
}

function readMarker(file: string): Marker | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

function intact(root: string, marker: Marker): boolean {
  try {
    return marker.sample.every(([f, size]) => fs.statSync(path.join(root, f)).size === size);
  } catch {
    return false;
  }
}

function git(cwd: string, ...args: string[]): void {
  const config = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', '-c', 'gc.auto=0'];
  execFileSync('git', [...config, '-c', 'core.fsmonitor=false', ...args], { cwd, stdio: 'ignore' });
}

function listAll(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === '.git') continue;
    if (e.isDirectory()) out.push(...listAll(root, child));
    else out.push(child);
  }
  return out;
}

const PACKAGE_LANGS: Array<[Lang[], string]> = [
  [['ts', 'ts', 'ts', 'tsx', 'md', 'json', 'css'], 'package.json'],
  [['ts', 'ts', 'js', 'json', 'md'], 'package.json'],
  [['py', 'py', 'py', 'md', 'yml'], 'pyproject.toml'],
  [['go', 'go', 'go', 'md'], 'go.mod'],
  [['rs', 'rs', 'rs', 'md'], 'Cargo.toml'],
  [['java', 'java', 'java', 'md', 'yml'], 'pom.xml'],
];

/** Writes the whole tree; returns its shape (the time is filled in by the caller). */
function generate(root: string): TreeShape {
  const random = seededRandom(SEED);
  const maker = new TextMaker(random);
  const shape: TreeShape = {
    root,
    files: 0,
    bytes: 0,
    ignoredFiles: 0,
    hiddenFiles: 0,
    binaryFiles: 0,
    bigFiles: [],
    plantedFiles: 0,
    generatedSeconds: 0,
  };
  // Modification times spread over a year, so "newest first" has an order to find.
  const yearAgo = Date.now() / 1000 - 365 * 86_400;
  const write = (rel: string, data: string | Buffer, kind: { binary?: boolean } = {}): void => {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, data);
    const t = yearAgo + random() * 365 * 86_400;
    fs.utimesSync(abs, t, t);
    shape.files++;
    shape.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    if (kind.binary) shape.binaryFiles++;
    if (rel.split('/').some((s) => s.startsWith('.') && s !== '.gitignore')) shape.hiddenFiles++;
  };
  // Log-uniform 1-30 KB, and one file in fifty 30-300 KB.
  const size = (): number => Math.round(1024 * (random() < 0.02 ? 30 * 10 ** random() : 30 ** random()));
  const plant = (): boolean => {
    const p = random() < 0.01;
    if (p) shape.plantedFiles++;
    return p;
  };
  const source = (rel: string, lang: Lang): void => write(rel, maker.text(lang, size(), plant()));

  write('.gitignore', 'node_modules/\n*.log\n/tmp/\n.env\n');
  write('package.json', '{ "name": "monorepo", "private": true, "workspaces": ["packages/*"] }\n');
  write('README.md', maker.text('md', 4000, false));
  for (let i = 0; i < 12; i++)
    write(`.github/workflows/${maker.ident(false)}_${i}.yml`, maker.text('yml', size(), false));
  for (let i = 0; i < 200; i++) source(`.cache/build/${maker.ident()}_${i}.json`, 'json');
  write('.vscode/settings.json', '{ "editor.tabSize": 2 }\n');

  // Installed dependencies: ignored by the root's `node_modules/` wherever they sit.
  for (let i = 0; i < 4000; i++)
    source(`node_modules/${maker.pick(WORDS)}-${i % 150}/lib/${maker.ident()}_${i}.js`, 'js');

  // Binary assets, and the big generated files.
  for (let i = 0; i < 500; i++) {
    const buf = Buffer.alloc(Math.round(2048 * 100 ** random()));
    for (let k = 0; k < buf.length; k += 4) buf.writeUInt32LE((random() * 2 ** 32) >>> 0, Math.min(k, buf.length - 4));
    buf[8] = 0;
    write(
      `assets/${maker.pick(['img', 'fonts', 'wasm'])}/${maker.ident()}_${i}.${maker.pick(['png', 'woff2', 'wasm'])}`,
      buf,
      { binary: true },
    );
  }
  const big = (rel: string, mb: number, lang: Lang): void => {
    write(rel, maker.text(lang, mb * 2 ** 20, true));
    shape.plantedFiles++;
    shape.bigFiles.push({ path: rel, bytes: fs.statSync(path.join(root, rel)).size });
  };
  big('packages/api/generated/openapi.json', 32, 'json');
  big('data/fixtures/seed.sql.json', 46, 'json');
  big('packages/web/dist/bundle.js', 24, 'js');
  const video = Buffer.alloc(21 * 2 ** 20);
  for (let k = 0; k < video.length; k += 4096) video.writeUInt32LE((random() * 2 ** 32) >>> 0, k);
  write('assets/video/demo.mp4', video, { binary: true });
  shape.bigFiles.push({ path: 'assets/video/demo.mp4', bytes: video.length });

  // The packages: what is left of the 100,000 files.
  const packages = Array.from({ length: 48 }, (_, i) => `${maker.pick(WORDS)}-${maker.pick(WORDS)}-${i}`);
  packages[0] = 'web';
  packages[1] = 'api';
  // Each package's folders: about 120, two levels deep, so a folder holds some 15 files, as in real code.
  const areas = packages.map(() => {
    const top = Array.from({ length: 12 }, () => maker.pick(WORDS));
    return Array.from({ length: 120 }, (_, k) => `${top[k % 12]}/${maker.pick(WORDS)}`);
  });
  for (const [i, pkg] of packages.entries()) {
    const [, manifest] = PACKAGE_LANGS[i % PACKAGE_LANGS.length] as [Lang[], string];
    write(
      `packages/${pkg}/${manifest}`,
      `{ "name": "${pkg}", "scripts": { "build": "tsc", "test": "node --test" } }\n`,
    );
    write(`packages/${pkg}/.gitignore`, 'dist/\nbuild/\ncoverage/\n*.tsbuildinfo\n');
    write(`packages/${pkg}/README.md`, maker.text('md', size(), false));
  }
  // A nested node_modules, and a hidden folder inside a package.
  for (let i = 0; i < 1000; i++)
    source(`packages/web/node_modules/${maker.pick(WORDS)}/dist/${maker.ident()}_${i}.js`, 'js');
  for (let i = 0; i < 60; i++) source(`packages/web/.storybook/${maker.ident()}_${i}.tsx`, 'tsx');
  let n = 0;
  while (shape.files < TOTAL_FILES) {
    const i = Math.floor(random() * packages.length);
    const pkg = packages[i] as string;
    const [langs] = PACKAGE_LANGS[i % PACKAGE_LANGS.length] as [Lang[], string];
    const lang = maker.pick(langs);
    const area = maker.pick(areas[i] as string[]);
    const name = `${maker.ident()}_${n++}`;
    const r = random();
    // About one file in ten is build output a package's .gitignore leaves out.
    if (r < 0.06 && i % 4 !== 3) source(`packages/${pkg}/dist/${area}/${name}.js`, 'js');
    else if (r < 0.08) source(`packages/${pkg}/coverage/${area}/${name}.json`, 'json');
    else if (r < 0.1) source(`packages/${pkg}/build/${name}.tsbuildinfo`, 'json');
    else if (r < 0.2) source(`packages/${pkg}/test/${area}/${name}.test.${lang}`, lang);
    else source(`packages/${pkg}/src/${area}/${name}.${lang}`, lang);
  }
  return shape;
}
