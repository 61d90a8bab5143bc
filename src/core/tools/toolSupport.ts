// Shared plumbing of the tools: input checks, path resolution with the path guard, and a wrapper that
// turns any thrown error into an error result so the agent loop never has to catch.
import os from 'node:os';
import path from 'node:path';
import type { ToolSchema } from '../conversation/types';
import type { PathOp } from '../fs/pathGuard';
import { procSecretProblem } from '../security/procFiles';
import type { Tool, ToolContext, ToolResult } from './tool';

export type FieldType = 'string' | 'integer' | 'boolean';

export interface FieldSpec {
  type: FieldType;
  required?: boolean;
  /** Smallest allowed value for integers. */
  min?: number;
  /** Allowed values for strings. */
  oneOf?: readonly string[];
  /** Strings must not be empty. */
  nonEmpty?: boolean;
}

/** Checks an input object against a field spec. Unknown fields are tolerated: models add harmless extras. */
export function checkFields(input: unknown, spec: Record<string, FieldSpec>): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return 'Input must be a JSON object.';
  }
  const obj = input as Record<string, unknown>;
  for (const [name, f] of Object.entries(spec)) {
    const v = obj[name];
    if (v === undefined || v === null) {
      if (f.required) return `Missing required field "${name}" (${f.type}).`;
      continue;
    }
    if (f.type === 'string') {
      if (typeof v !== 'string') return `Field "${name}" must be a string, got ${describe(v)}.`;
      if (f.nonEmpty && v.length === 0) return `Field "${name}" must not be empty.`;
      if (f.oneOf && !f.oneOf.includes(v)) return `Field "${name}" must be one of: ${f.oneOf.join(', ')}.`;
    } else if (f.type === 'integer') {
      if (typeof v !== 'number' || !Number.isInteger(v))
        return `Field "${name}" must be an integer, got ${describe(v)}.`;
      if (f.min !== undefined && v < f.min) return `Field "${name}" must be >= ${f.min}.`;
    } else if (typeof v !== 'boolean') {
      return `Field "${name}" must be a boolean, got ${describe(v)}.`;
    }
  }
  return null;
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? `the string ${JSON.stringify(v.slice(0, 40))}` : typeof v;
}

export function errorResult(content: string, data?: unknown): ToolResult {
  return { content, isError: true, data };
}

export function okResult(content: string, data?: unknown): ToolResult {
  return { content, isError: false, data };
}

interface ToolDefinition<I> {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  fields: Record<string, FieldSpec>;
  readOnly: boolean;
  concurrencySafe: boolean;
  summarize(input: I): string;
  /** See Tool.readPaths. */
  readPaths?(input: I): string[];
  run(input: I, ctx: ToolContext): Promise<ToolResult>;
}

/** Builds a Tool whose run() re-validates its input and never rejects. */
export function defineTool<I>(def: ToolDefinition<I>): Tool<I> {
  const schema: ToolSchema = { name: def.name, description: def.description, input_schema: def.inputSchema };
  const validate = (input: unknown): string | null => checkFields(input, def.fields);
  return {
    name: def.name,
    schema,
    readOnly: def.readOnly,
    concurrencySafe: def.concurrencySafe,
    validate,
    summarize(input: I): string {
      try {
        return def.summarize(input);
      } catch {
        return def.name;
      }
    },
    ...(def.readPaths ? { readPaths: def.readPaths } : {}),
    async run(input: I, ctx: ToolContext): Promise<ToolResult> {
      const problem = validate(input);
      if (problem) return errorResult(`Invalid input for ${def.name}: ${problem}`);
      if (ctx.signal.aborted) return errorResult(`${def.name} was cancelled before it started.`);
      try {
        return await def.run(input, ctx);
      } catch (err) {
        return errorResult(`${def.name} failed: ${errorText(err)}`);
      }
    },
  };
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** Absolute path for a tool's path argument: `~/` is home, relative paths are relative to the cwd. */
export function resolveToolPath(p: string, cwd: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(os.homedir(), p.slice(2));
  return path.resolve(cwd, p);
}

/**
 * Resolves a path argument and asks the path guard; returns the absolute path or an error result. No
 * tool, whatever its guard, touches a process's /proc environ, cmdline or mem (see security/procFiles).
 */
export function guardedPath(p: string, op: PathOp, ctx: ToolContext): { abs: string } | { error: ToolResult } {
  const abs = resolveToolPath(p, ctx.cwd);
  const denied = procSecretProblem(abs) ?? ctx.pathGuard?.(abs, op);
  if (denied) return { error: errorResult(denied) };
  return { abs };
}

/** A path as short as it can be while staying unambiguous: relative to cwd when inside it. */
export function displayPath(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  if (rel === '') return '.';
  if (rel.startsWith('..') || path.isAbsolute(rel)) return abs;
  return rel;
}
