// One server entry as written in a config file, checked and turned into a McpServerEntry: the shape is
// validated with zod (stdio `{command, args, env}`, with or without `type: "stdio"`; remote
// `{type: "http"|"sse", url, headers}`), the name is checked against Claude Code's rule, variables are
// expanded (configExpand.ts) and the fingerprint is taken of the entry as written.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { Expander, type ExpandContext } from './configExpand';
import type { McpInputSpec, McpServerEntry, McpSource, McpTransportConfig } from './types';

/** Claude Code's rule for server names: letters, digits, `_` and `-`. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

const stringMap = z.record(z.string(), z.string());
const stdioEntry = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'command is empty'),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().optional(),
});
const remoteEntry = z.looseObject({
  type: z.enum(['http', 'sse']),
  url: z.string().min(1, 'url is empty'),
  headers: stringMap.optional(),
});

/** The result of reading one entry: the entry, or why it was left out. */
export type EntryOutcome = { entry: McpServerEntry } | { problem: string };

export interface EntryContext extends ExpandContext {
  source: McpSource;
  file?: string;
  /** The `.vscode/mcp.json` inputs by id. */
  inputSpecs?: ReadonlyMap<string, McpInputSpec>;
}

export function readEntry(name: string, raw: unknown, ctx: EntryContext): EntryOutcome {
  if (!SERVER_NAME_PATTERN.test(name))
    return { problem: `the server name "${name}" may hold only letters, digits, "_" and "-"` };
  const rec = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const bareUrl = rec.type === undefined && rec.url !== undefined && rec.command === undefined;
  // VS Code takes a url without a type as an HTTP server; Claude Code's files need the type.
  if (bareUrl && ctx.dialect === 'claude') return { problem: 'a "url" needs "type": "http" or "type": "sse"' };
  if (bareUrl) raw = { ...rec, type: 'http' };
  const remote = bareUrl || rec.type === 'http' || rec.type === 'sse';
  const parsed = remote ? remoteEntry.safeParse(raw) : stdioEntry.safeParse(raw);
  if (!parsed.success) return { problem: describeIssues(parsed.error, remote) };
  const x = new Expander(ctx);
  let transport: McpTransportConfig;
  if ('url' in parsed.data) {
    const d = parsed.data as z.infer<typeof remoteEntry>;
    transport = { type: d.type, url: x.one(d.url), headers: x.map(d.headers) };
  } else {
    const d = parsed.data as z.infer<typeof stdioEntry>;
    transport = { type: 'stdio', command: x.one(d.command), args: x.list(d.args), env: x.map(d.env) };
    // A relative cwd is the project's, as a relative command or argument would be.
    if (d.cwd !== undefined) transport.cwd = path.resolve(ctx.projectRoot, x.one(d.cwd));
  }
  if (x.missing.size > 0) {
    const names = [...x.missing].map((v) => `\${${v}}`).join(', ');
    return { problem: `${names} is not set in the environment and has no default (write \${VAR:-default})` };
  }
  const entry: McpServerEntry = { name, source: ctx.source, transport, fingerprint: fingerprintOf(rec) };
  if (ctx.file !== undefined) entry.file = ctx.file;
  if (x.inputs.size > 0) {
    const unknown = [...x.inputs].filter((id) => !ctx.inputSpecs?.has(id));
    if (unknown.length > 0) return { problem: `\${input:${unknown[0]}} names no entry of "inputs"` };
    entry.inputs = [...x.inputs].map((id) => ctx.inputSpecs?.get(id) as McpInputSpec);
  }
  return { entry };
}

function describeIssues(error: z.ZodError, remote: boolean): string {
  const issue = error.issues[0];
  const where = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'the entry';
  const shape = remote
    ? 'a remote server is {"type": "http"|"sse", "url": "...", "headers": {...}}'
    : 'a local server is {"command": "...", "args": [...], "env": {...}}';
  return `${where}: ${issue.message} (${shape})`;
}

/** sha256 of the entry's canonical JSON (keys sorted), as written: an approval is kept for it. */
export function fingerprintOf(raw: unknown): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    const keys = Object.keys(rec)
      .filter((k) => rec[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(rec[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
