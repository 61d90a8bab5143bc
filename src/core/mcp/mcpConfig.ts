// Where MCP servers are configured, read and merged by name: the person's `<dataDir>/mcp.json` and the
// `engram.mcp.servers` setting, the project's `.mcp.json` (Claude Code's format) and `.vscode/mcp.json`
// (VS Code's format, with comments and `inputs`), and each `--mcp-config` of `engram -p`. A bad entry is
// reported and the rest still loads; a file that cannot be read or parsed is one problem; a missing file
// is none. Where two sources define one name the first of cli, project, vscode, setting, user is used and
// the others are recorded as shadowed.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isErrno } from '../fs/errno';
import { type EntryContext, readEntry } from './configEntry';
import { parseJsonc } from './jsonc';
import type { McpConfigProblem, McpInputSpec, McpServerEntry, McpSource, MergedMcpConfig } from './types';

export interface McpConfigInputs {
  /** `<dataDir>/mcp.json` (source 'user'). */
  dataDir: string;
  /** `<projectRoot>/.mcp.json` ('project') and `<projectRoot>/.vscode/mcp.json` ('vscode'). */
  projectRoot: string;
  /** `engram.mcp.servers` ('setting'): a map by name, with or without an `mcpServers` wrapper. */
  setting?: Readonly<Record<string, unknown>>;
  /** Each --mcp-config value: a file path (relative to projectRoot) or inline JSON ('cli'). */
  cli?: readonly string[];
  /** For `${VAR}` and `${VAR:-default}` (and `${env:VAR}` in VS Code's file). */
  env: Record<string, string | undefined>;
}

/** Sources in precedence order: the first that defines a name is used. */
const PRECEDENCE: readonly McpSource[] = ['cli', 'project', 'vscode', 'setting', 'user'];

interface SourceRead {
  entries: McpServerEntry[];
  problems: McpConfigProblem[];
}

export async function readMcpConfig(inputs: McpConfigInputs): Promise<MergedMcpConfig> {
  const reads: Record<McpSource, Promise<SourceRead>> = {
    cli: readCli(inputs),
    project: readClaudeFile(path.join(inputs.projectRoot, '.mcp.json'), 'project', inputs),
    vscode: readVscodeFile(path.join(inputs.projectRoot, '.vscode', 'mcp.json'), inputs),
    setting: Promise.resolve(
      inputs.setting ? readServerMap(unwrap(inputs.setting), claudeContext('setting', inputs)) : empty(),
    ),
    user: readClaudeFile(path.join(inputs.dataDir, 'mcp.json'), 'user', inputs),
  };
  const merged: MergedMcpConfig = { servers: [], shadowed: [], problems: [] };
  const byName = new Map<string, McpServerEntry>();
  for (const source of PRECEDENCE) {
    const read = await reads[source];
    merged.problems.push(...read.problems);
    for (const entry of read.entries) {
      const used = byName.get(entry.name);
      if (!used) {
        byName.set(entry.name, entry);
        merged.servers.push(entry);
        continue;
      }
      const known = merged.shadowed.find((s) => s.name === entry.name);
      if (known) known.ignored.push(entry.source);
      else merged.shadowed.push({ name: entry.name, used: used.source, ignored: [entry.source] });
    }
  }
  return merged;
}

function empty(): SourceRead {
  return { entries: [], problems: [] };
}

function claudeContext(source: McpSource, inputs: McpConfigInputs, file?: string): EntryContext {
  return { dialect: 'claude', env: inputs.env, projectRoot: inputs.projectRoot, source, ...(file ? { file } : {}) };
}

/** The setting may be the map itself or Claude Code's `{mcpServers: {...}}`. */
function unwrap(value: Readonly<Record<string, unknown>>): unknown {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'mcpServers' ? value.mcpServers : value;
}

/** Each entry of a name -> entry map; a bad entry is a problem naming it, the others load. */
function readServerMap(map: unknown, ctx: EntryContext): SourceRead {
  const out = empty();
  if (map === null || typeof map !== 'object' || Array.isArray(map)) {
    out.problems.push(problem(ctx, 'the servers must be an object mapping each name to its entry'));
    return out;
  }
  for (const [name, raw] of Object.entries(map)) {
    const r = readEntry(name, raw, ctx);
    if ('entry' in r) out.entries.push(r.entry);
    else out.problems.push({ ...problem(ctx, r.problem), server: name });
  }
  return out;
}

function problem(ctx: { source: McpSource; file?: string }, message: string): McpConfigProblem {
  return { source: ctx.source, ...(ctx.file ? { file: ctx.file } : {}), message };
}

/** The file's parsed JSON(C), undefined when it does not exist, or a problem when it cannot be read. */
async function readJsonFile(file: string, source: McpSource): Promise<{ value?: unknown; problem?: McpConfigProblem }> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    // ENOTDIR: a folder on the way is a file (a data dir that is a file), so there is no such file either.
    if (isErrno(e, 'ENOENT', 'ENOTDIR')) return {};
    return { problem: problem({ source, file }, `could not be read: ${(e as Error).message}`) };
  }
  return parseText(text, source, file);
}

function parseText(text: string, source: McpSource, file?: string): { value?: unknown; problem?: McpConfigProblem } {
  try {
    return { value: parseJsonc(text) };
  } catch (e) {
    return { problem: problem({ source, ...(file ? { file } : {}) }, `is not valid JSON: ${(e as Error).message}`) };
  }
}

/** Claude Code's format: `{"mcpServers": {name: entry}}`. */
function readClaudeValue(value: unknown, ctx: EntryContext): SourceRead {
  const rec = value as Record<string, unknown> | null;
  if (rec === null || typeof rec !== 'object' || Array.isArray(rec))
    return { entries: [], problems: [problem(ctx, 'must be a JSON object with "mcpServers"')] };
  if (rec.mcpServers === undefined)
    return Object.keys(rec).length === 0 ? empty() : { entries: [], problems: [problem(ctx, 'has no "mcpServers"')] };
  return readServerMap(rec.mcpServers, ctx);
}

async function readClaudeFile(file: string, source: McpSource, inputs: McpConfigInputs): Promise<SourceRead> {
  const read = await readJsonFile(file, source);
  if (read.problem) return { entries: [], problems: [read.problem] };
  if (read.value === undefined) return empty();
  return readClaudeValue(read.value, claudeContext(source, inputs, file));
}

async function readCli(inputs: McpConfigInputs): Promise<SourceRead> {
  const out = empty();
  for (const arg of inputs.cli ?? []) {
    const inline = arg.trimStart().startsWith('{');
    const file = inline ? undefined : path.resolve(inputs.projectRoot, arg);
    let read: { value?: unknown; problem?: McpConfigProblem };
    if (file) {
      read = await readJsonFile(file, 'cli');
      if (!read.problem && read.value === undefined)
        read = { problem: problem({ source: 'cli', file }, 'does not exist') };
    } else read = parseText(arg, 'cli');
    if (read.problem) {
      out.problems.push(
        inline ? { ...read.problem, message: `--mcp-config JSON ${read.problem.message}` } : read.problem,
      );
      continue;
    }
    const r = readClaudeValue(read.value, claudeContext('cli', inputs, file));
    out.entries.push(...r.entries);
    out.problems.push(...r.problems);
  }
  return out;
}

/** VS Code's format: `{"servers": {name: entry}, "inputs": [{type, id, description, password}]}`, with comments. */
async function readVscodeFile(file: string, inputs: McpConfigInputs): Promise<SourceRead> {
  const read = await readJsonFile(file, 'vscode');
  if (read.problem) return { entries: [], problems: [read.problem] };
  if (read.value === undefined) return empty();
  const ctx: EntryContext = {
    dialect: 'vscode',
    env: inputs.env,
    projectRoot: inputs.projectRoot,
    source: 'vscode',
    file,
  };
  const rec = read.value as Record<string, unknown> | null;
  if (rec === null || typeof rec !== 'object' || Array.isArray(rec))
    return { entries: [], problems: [problem(ctx, 'must be a JSON object with "servers"')] };
  const specs = new Map<string, McpInputSpec>();
  for (const item of Array.isArray(rec.inputs) ? rec.inputs : []) {
    const i = item as Record<string, unknown>;
    if (typeof i?.id !== 'string') continue;
    const spec: McpInputSpec = { id: i.id, type: typeof i.type === 'string' ? i.type : 'promptString' };
    if (typeof i.description === 'string') spec.description = i.description;
    if (i.password === true) spec.password = true;
    specs.set(spec.id, spec);
  }
  if (rec.servers === undefined) return empty();
  return readServerMap(rec.servers, { ...ctx, inputSpecs: specs });
}
