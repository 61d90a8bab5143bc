// Variables in MCP server entries, expanded once as the entry is read. Claude Code's files (`.mcp.json`,
// `<dataDir>/mcp.json`, the setting, --mcp-config) take `${VAR}` and `${VAR:-default}` from the
// environment; a variable that is unset and has no default leaves the server out, naming the variable.
// VS Code's `.vscode/mcp.json` takes `${env:VAR}` (empty when unset), `${workspaceFolder}` (the project
// root) and `${input:id}`, which stays as written for the hub to fill in from the person's answer.

export type ExpandDialect = 'claude' | 'vscode';

export interface ExpandContext {
  dialect: ExpandDialect;
  env: Record<string, string | undefined>;
  projectRoot: string;
}

/** What expanding gave: the text, the `${input:id}` ids met, and the variables that were unset. */
export interface Expansion {
  text: string;
  inputs: string[];
  missing: string[];
}

const REF = /\$\{([^}]+)\}/g;
const CLAUDE_VAR = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

export function expandVars(text: string, ctx: ExpandContext): Expansion {
  const inputs: string[] = [];
  const missing: string[] = [];
  const out = text.replace(REF, (whole, inner: string) => {
    if (ctx.dialect === 'vscode') {
      if (inner === 'workspaceFolder') return ctx.projectRoot;
      if (inner.startsWith('env:')) return ctx.env[inner.slice(4)] ?? '';
      if (inner.startsWith('input:')) {
        inputs.push(inner.slice(6));
        return whole;
      }
      return whole; // another VS Code variable this reader does not know: left as written
    }
    const m = CLAUDE_VAR.exec(inner);
    if (!m) return whole;
    const value = ctx.env[m[1]];
    if (value !== undefined) return value;
    if (m[2] !== undefined) return m[2];
    missing.push(m[1]);
    return whole;
  });
  return { text: out, inputs, missing };
}

/** Expands every string of a list or a string map, collecting what expandVars found across them. */
export class Expander {
  readonly inputs = new Set<string>();
  readonly missing = new Set<string>();

  constructor(private readonly ctx: ExpandContext) {}

  one(text: string): string {
    const e = expandVars(text, this.ctx);
    for (const id of e.inputs) this.inputs.add(id);
    for (const name of e.missing) this.missing.add(name);
    return e.text;
  }

  list(texts: readonly string[] | undefined): string[] {
    return (texts ?? []).map((t) => this.one(t));
  }

  map(values: Readonly<Record<string, string>> | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(values ?? {})) out[k] = this.one(v);
    return out;
  }
}

/** `${input:id}` in `text` replaced by the answers (ids without an answer stay). */
export function fillInputs(text: string, answers: Readonly<Record<string, string>>): string {
  return text.replace(REF, (whole, inner: string) =>
    inner.startsWith('input:') && answers[inner.slice(6)] !== undefined ? answers[inner.slice(6)] : whole,
  );
}
