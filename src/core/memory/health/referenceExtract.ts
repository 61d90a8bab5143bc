// The references a memory makes that can go stale: file and folder paths, code symbols in backticks, and
// commands (npm/yarn/pnpm scripts, make targets, a script run by an interpreter). Built to be precise
// rather than thorough: a false "stale" on a good memory costs more trust than a missed one, so
// anything that may be prose, an example or a placeholder is left out:
// - URLs, domains, versions, globs, placeholders (`<name>`, `{id}`, `$VAR`, `path/to/...`, `...`),
//   home paths (`~/...`), absolute paths (checked only when inside the workspace, by the checker),
//   package names (`@scope/pkg`), command-line flags, and plain lowercase words in backticks;
// - the agents' own files (CLAUDE.md, MEMORY.md, AGENTS.md) and per-person settings folders (.claude/,
//   .vscode/, .idea/): a memory names them as places to write, and they are often untracked;
// - in a fenced code block only shell lines count (commands and the scripts they run, in a `sh`,
//   `bash`, `shell`, `console` or unlabelled fence); symbols in code fences are examples, not claims;
// - bare (unquoted) paths in prose need a slash and a file extension, a leading `./`, or a trailing `/`;
//   `make X` counts only in backticks or shell fences ("make sure" is prose);
// - a reference named as removed or to avoid ("never `moment()`", "`old.ts` was removed", "use X
//   instead of `Y`", "moved from `a` to `b`" for `a`) is not checked: the memory already says it is gone;
// - a single capitalised word (`Session`) is a class only after "class", "type", "interface",
//   "component" or "enum"; UPPER_SNAKE (often an environment variable set elsewhere) only as `FOO()`;
//   camelCase, PascalCase with two humps, snake_case, `foo()`,
//   `A.b` and dotted settings keys (`engram.memory.x`) count on their own.
// Nothing here touches the file system: the text is only matched, with fixed regexes (no regex is ever
// built from memory text), and at most MAX_REFERENCES_PER_MEMORY references are kept.
import type { MemoryReference } from './healthTypes';

/** References kept per memory; a file with more is checked on its first ones and says so. */
export const MAX_REFERENCES_PER_MEMORY = 500;
/** Longest reference considered (longer tokens are data, not names). */
const MAX_REF_CHARS = 200;
const MAX_LINE_CHARS = 20_000;

const FILE_EXTENSIONS = new Set(
  (
    'ts tsx js jsx mjs cjs json jsonc md mdx py pyi go rs java kt kts scala c h cc cpp hpp cs rb php swift m mm ' +
    'sh bash zsh fish ps1 bat cmd yml yaml toml ini cfg conf env lock txt rst html htm css scss sass less vue ' +
    'svelte astro sql graphql gql proto xml svg png jpg jpeg gif webp ico csv tsv ipynb r jl lua pl ex exs erl ' +
    'hs ml fs dart zig nim tf hcl gradle properties mk cmake dockerfile gitignore editorconfig npmrc nvmrc snap'
  ).split(' '),
);
const EXTENSIONLESS_FILES = new Set([
  'Makefile',
  'Dockerfile',
  'LICENSE',
  'README',
  'CHANGELOG',
  'Procfile',
  'Gemfile',
  'Rakefile',
  'Jenkinsfile',
  'Vagrantfile',
  'CODEOWNERS',
]);
const TLDS = /\.(com|org|net|io|dev|ai|co|app|edu|gov|me|sh|xyz|info|cloud|so|ly|gg|tech|us|uk|de|fr|jp|cn)$/i;
const SHELL_FENCES = new Set(['', 'sh', 'bash', 'shell', 'console', 'zsh', 'terminal', 'cmd', 'powershell', 'ps1']);
const CLASS_CUES = /\b(class|type|interface|component|enum|struct|trait|model|widget)\s*$/i;
/** The agents' own files, which a memory names as places to write to, not as workspace facts. */
const AGENT_FILES = new Set(['CLAUDE.md', 'CLAUDE.local.md', 'MEMORY.md', 'AGENTS.md', 'GEMINI.md', '.cursorrules']);
/** Per-person editor and agent settings folders: often untracked, so their absence says little. */
const LOCAL_CONFIG_DIRS = new Set(['.claude', '.cursor', '.vscode', '.idea', '.engram']);
/** Names of styles, languages, products and tools that look like code symbols but are prose in a memory. */
const NOT_SYMBOLS = new Set(
  (
    'camelCase PascalCase snake_case SCREAMING_SNAKE_CASE lowerCamelCase UpperCamelCase TitleCase kebab_case ' +
    'TypeScript JavaScript CoffeeScript ActionScript GitHub GitLab BitBucket PostgreSQL MySQL SQLite MongoDB ' +
    'DynamoDB CouchDB MariaDB GraphQL FastAPI OpenAI ChatGPT YouTube LinkedIn WebSocket WebSockets PowerShell ' +
    'CloudFlare Cloudflare JetBrains IntelliJ WebStorm PyCharm PyPI PyTorch TensorFlow NumPy SciPy LangChain ' +
    'DevOps macOS iOS iPadOS watchOS tvOS iPhone iPad WebAssembly WebGL WebGPU OAuth JSONSchema NodeJS NextJS ' +
    'NestJS NuxtJS VueJS ReactJS AngularJS DevTools VSCode VSCodium CodeQL SonarQube CircleCI TravisCI ' +
    'GitHubActions DockerHub HuggingFace OpenAPI AsyncAPI FreeBSD OpenBSD NetBSD RabbitMQ ZeroMQ ActiveMQ ' +
    'ElasticSearch Elasticsearch OpenSearch ClickHouse CockroachDB TimescaleDB InfluxDB BigQuery RedShift ' +
    'SnowFlake DataDog PagerDuty OpsGenie StatusPage LaunchDarkly PostHog FullStory LogRocket TailwindCSS ' +
    'StyledComponents ESLint TSLint JSHint PostCSS WebPack RollUp SvelteKit SolidJS RxJS ThreeJS ChartJS'
  ).split(' '),
);
/** Interpreters whose first argument is a script in the workspace. */
const INTERPRETERS = new Set([
  'node',
  'tsx',
  'ts-node',
  'python',
  'python3',
  'bash',
  'sh',
  'zsh',
  'deno',
  'bun',
  'ruby',
]);
/** npm subcommands that run the package.json script of the same name. */
const NPM_SCRIPT_ALIASES = new Set(['test', 'start', 'stop', 'restart', 't', 'tst']);
/** yarn/pnpm subcommands that are the tool's own (`yarn add x`, `pnpm install`), not scripts. */
const PM_BUILTINS = new Set(
  (
    'add install i remove rm uninstall up upgrade update dlx exec create init why list ls outdated link unlink ' +
    'publish pack login logout config cache audit info view version workspace workspaces import patch ' +
    'rebuild prune store env bin root help set global dedupe fetch'
  ).split(' '),
);

/** The references in a topic file's text (front matter description and body), in order, at most the cap. */
export function extractReferences(text: string): MemoryReference[] {
  return scanReferences(text).refs;
}

/** The references and how many were found before the cap (`total > refs.length` when some were left out). */
export function scanReferences(text: string): { refs: MemoryReference[]; total: number } {
  const refs: MemoryReference[] = [];
  const seen = new Set<string>();
  let total = 0;
  const add = (ref: string, kind: MemoryReference['kind'], line: number): void => {
    const key = `${kind}\0${ref}`;
    if (seen.has(key)) return;
    seen.add(key);
    total++;
    if (refs.length < MAX_REFERENCES_PER_MEMORY) refs.push({ ref, kind, line });
  };
  let fence: { marker: string; shell: boolean } | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].slice(0, MAX_LINE_CHARS); // beyond this a line is data, not prose
    const opener = /^\s*(`{3,}|~{3,})\s*([\w+-]*)/.exec(line);
    if (opener && (!fence || line.trim().startsWith(fence.marker))) {
      fence = fence ? undefined : { marker: opener[1], shell: SHELL_FENCES.has(opener[2].toLowerCase()) };
      continue;
    }
    if (fence) {
      if (fence.shell) shellLine(line.replace(/^\s*[$>#]\s+/, ''), i + 1, add);
      continue;
    }
    proseLine(line, i + 1, add);
  }
  return { refs, total };
}

type Add = (ref: string, kind: MemoryReference['kind'], line: number) => void;

function proseLine(line: string, n: number, add: Add): void {
  // Backticked spans first; the prose around them is scanned with them blanked out.
  const spans = /`([^`\n]{1,400})`/g;
  let m: RegExpExecArray | null;
  while ((m = spans.exec(line)))
    if (!historical(line, m.index, m.index + m[0].length)) codeSpan(m[1].trim(), line.slice(0, m.index), n, add);
  const prose = line.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length)); // offsets kept
  const scripts = /\b(npm|pnpm|yarn)\s+run\s+([\w:.-]*[\w:-])/g;
  while ((m = scripts.exec(prose)))
    if (!historical(line, m.index, m.index + m[0].length)) add(`${m[1]} run ${m[2]}`, 'command', n);
  const words = /(?:^|[\s(["'])((?:\.{1,2}\/)?[\w@.-]+(?:\/[\w@.-]+)*\/?)(?=$|[\s)\]"',;:!?]|\.(?:\s|$))/g;
  while ((m = words.exec(prose))) {
    const start = m.index + m[0].length - m[1].length;
    const p = bareProsePath(m[1]);
    if (p && !historical(line, start, start + m[1].length)) add(p, 'path', n);
  }
}

/** Words before a reference that say it is not (or no longer) to be used: "never", "instead of", "moved from". */
const NEGATED_BEFORE =
  /\b(never|don['’]t|do not|does not|avoid|instead of|rather than|no longer|deprecated|removed|replaced|formerly|used to|renamed from|moved from|no more|stop using|not use|obsolete)\b/i;
/** Words after it that say it is gone: "`src/date.ts` was removed". */
const GONE_AFTER =
  /^[\s,)]*(was|were|is|are|has been|have been|got)\s+(removed|deleted|renamed|replaced|dropped|deprecated|moved|retired|gone)\b|^[\s,)]*(no longer exists?|is gone)\b/i;

/**
 * Whether the reference at [start, end) of the line is named as something removed or to avoid ("never
 * `moment()`", "`old.ts` was removed", "use X instead of `Y`"): a memory that says so is not stale
 * when it is gone, so it is not checked. Only the clause around it counts (back to the previous code
 * span or sentence end), so "moved from `a` to `b`" still checks `b`.
 */
function historical(line: string, start: number, end: number): boolean {
  const before = line.slice(0, start);
  const cut = Math.max(before.lastIndexOf('`'), ...['. ', '; ', '! ', '? ', ': '].map((p) => before.lastIndexOf(p)));
  if (NEGATED_BEFORE.test(before.slice(cut + 1))) return true;
  return GONE_AFTER.test(line.slice(end, end + 60));
}

/** A token from prose that is plainly a path: a slash plus an extension, a leading `./`, or a trailing `/`. */
function bareProsePath(raw: string): string | undefined {
  const token = raw.replace(/[.,;:!?]+$/, '');
  if (!token.includes('/')) return undefined;
  const hasExt = extensionOf(token.replace(/\/$/, '')) !== undefined;
  if (!hasExt && !token.startsWith('./') && !token.endsWith('/')) return undefined;
  if (!/[A-Za-z]/.test(token)) return undefined; // dates, fractions
  return pathRef(token);
}

function codeSpan(span: string, before: string, n: number, add: Add): void {
  if (span === '' || span.length > MAX_REF_CHARS) return;
  if (/\s/.test(span)) {
    shellLine(span, n, add);
    return;
  }
  if (looksLikePath(span)) {
    const p = pathRef(span); // a path left out on purpose is not a symbol either
    if (p) add(p, 'path', n);
    return;
  }
  const s = symbolRef(span, before);
  if (s) add(s, 'symbol', n);
}

/** A shell command line (a backticked span with spaces, or a line of a shell fence). */
function shellLine(line: string, n: number, add: Add): void {
  for (const part of line.split(/&&|\|\||;|\|/)) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) words.shift(); // FOO=1 npm test
    if (words[0] === 'npx' || words[0] === 'sudo') words.shift();
    const [tool, sub, arg] = words;
    if (tool === undefined) continue;
    if ((tool === 'npm' || tool === 'pnpm' || tool === 'yarn') && sub !== undefined) {
      const viaRun = sub === 'run' || sub === 'run-script';
      const script = viaRun ? arg : scriptAlias(tool, sub);
      if (script && /^[\w:.-]+$/.test(script) && !script.startsWith('-'))
        add(viaRun ? `${tool} run ${script}` : `${tool} ${script}`, 'command', n);
    } else if (tool === 'make' && sub !== undefined && /^[\w.-]+$/.test(sub) && !sub.startsWith('-')) {
      if (!sub.includes('=')) add(`make ${sub}`, 'command', n);
    } else if (INTERPRETERS.has(tool) && sub !== undefined && !sub.startsWith('-')) {
      const p = looksLikePath(sub) ? pathRef(sub) : undefined;
      if (p && extensionOf(p) !== undefined) add(`${tool} ${p}`, 'command', n);
    } else if (/^\.{0,2}\/[\w./-]+$/.test(tool) && tool.includes('/')) {
      const p = pathRef(tool);
      if (p) add(p, 'path', n);
    }
  }
}

function scriptAlias(tool: string, sub: string): string | undefined {
  if (tool === 'npm') return NPM_SCRIPT_ALIASES.has(sub) ? (sub === 't' || sub === 'tst' ? 'test' : sub) : undefined;
  // `yarn build`, `pnpm lint`: a script, unless it is the tool's own command.
  return PM_BUILTINS.has(sub) || sub.startsWith('-') ? undefined : sub;
}

function extensionOf(p: string): string | undefined {
  const base = p.slice(p.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 && !(dot === 0 && base.length > 1 && FILE_EXTENSIONS.has(base.slice(1).toLowerCase()))) return undefined;
  const ext = base.slice(dot + 1).toLowerCase();
  return FILE_EXTENSIONS.has(ext) ? ext : undefined;
}

function looksLikePath(s: string): boolean {
  if (s.includes('/')) return true;
  return extensionOf(s) !== undefined || EXTENSIONLESS_FILES.has(s);
}

/**
 * The path as it will be checked, or undefined when it is not one to check: URLs, domains, globs,
 * placeholders, home paths, package names, flags, versions. Absolute paths are kept (the checker looks
 * at them only when they are inside the workspace).
 */
function pathRef(raw: string): string | undefined {
  const s = raw.replace(/[.,;:]+$/, '').replace(/:\d+(?::\d+)?$/, ''); // trailing punctuation, file.ts:12:3
  if (s === '' || s.length > MAX_REF_CHARS || s === '/' || s === './' || s === '../') return undefined;
  if (/:\/\/|^www\.|^mailto:|^[A-Za-z]:[\\/]|^~|^@|^-|\\/.test(s)) return undefined;
  if (/[*?[\]{}<>$%|#=&'"!,()…]/.test(s) || s.includes('...')) return undefined;
  const segments = s.split('/').filter((x) => x !== '' && x !== '.');
  if (segments.length === 0) return undefined;
  const first = segments[0];
  if (TLDS.test(first) && !looksLikeFileName(first)) return undefined; // github.com/owner/repo
  if (segments.some(isPlaceholderSegment)) return undefined;
  if (AGENT_FILES.has(segments[segments.length - 1]) || LOCAL_CONFIG_DIRS.has(first)) return undefined;
  if (segments.some((x) => /^v?\d+(\.\d+)+$/.test(x))) return undefined; // versions in a path
  if (/^\d+$/.test(segments[segments.length - 1])) return undefined; // issue/123
  return s;
}

function looksLikeFileName(segment: string): boolean {
  return extensionOf(segment) !== undefined;
}

function isPlaceholderSegment(x: string): boolean {
  const l = x.toLowerCase();
  return (
    /^(path|some|your|my|foo|bar|baz|qux|example|sample|xxx+|yyy+)$/.test(l) ||
    /^(foo|bar|my|your|example)[-_.]/.test(l)
  );
}

/** A backticked span that names a code symbol, as it will be looked up, or undefined. */
function symbolRef(span: string, before: string): string | undefined {
  const call = /^((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)\(\)$/.exec(span);
  if (call) return call[1].replace(/^this\./, '');
  if (!/^[A-Za-z_$][\w$]*(?:(?:\.|#|::)[A-Za-z_$][\w$]*)*$/.test(span)) return undefined;
  if (span.length < 3) return undefined;
  const name = span.replace(/#|::/g, '.').replace(/^this\./, '');
  if (NOT_SYMBOLS.has(name)) return undefined;
  if (name.includes('.')) {
    const parts = name.split('.');
    // `a.b` with two short lowercase words is more often prose or a value (`e.g`, `i.e`); settings keys
    // and methods carry a capital, an underscore, or three parts.
    if (parts.some((p) => p.length === 0)) return undefined;
    if (parts.length === 2 && !/[A-Z_]/.test(name) && parts.every((p) => p.length <= 3)) return undefined;
    return name;
  }
  if (/^[a-z][a-z0-9]*$/.test(name)) return undefined; // plain word: prose, a value, a tool
  // README, JSON, and UPPER_SNAKE: often an environment variable set outside the repository or named only
  // in its README, so its absence from the source says little.
  if (/^[A-Z][A-Z0-9_]*$/.test(name)) return undefined;
  if (/^[A-Z][a-z0-9]+$/.test(name)) return CLASS_CUES.test(before) ? name : undefined; // `Session`
  if (/^[a-z]+(-[a-z0-9]+)+$/.test(name)) return undefined; // kebab words
  return name;
}
