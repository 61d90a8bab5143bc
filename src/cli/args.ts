// Command-line parsing for every subcommand: node:util's parseArgs with strict checking, and errors
// turned into UsageError (exit code 2) with words a person can act on.
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** One line for --help. */
  help: string;
  /** Shown in --help as the value's name, e.g. ID. */
  valueName?: string;
  /** May be given more than once; the values come as a list. */
  multiple?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

export type ParsedOptions<S extends OptionSpecs> = {
  [K in keyof S]?: S[K]['type'] extends 'boolean' ? boolean : S[K]['multiple'] extends true ? string[] : string;
};

export interface ParsedArgs<S extends OptionSpecs> {
  options: ParsedOptions<S>;
  positionals: string[];
}

export function parseCommandArgs<S extends OptionSpecs>(argv: string[], specs: S): ParsedArgs<S> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = {
      type: spec.type,
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    };
  }
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { options: values as ParsedOptions<S>, positionals };
  } catch (e) {
    // parseArgs messages name the option already ("Unknown option '--x'", "Option '-p' argument missing").
    throw new UsageError(e instanceof Error ? e.message.replace(/\. To specify a positional.*$/s, '') : String(e));
  }
}

/** The option table of a --help text. */
export function formatOptions(specs: OptionSpecs): string {
  const rows = Object.entries(specs).map(([name, s]) => {
    const shortFlag = s.short ? `-${s.short}, ` : '    ';
    const valueName = s.type === 'string' ? ` ${s.valueName ?? 'VALUE'}` : '';
    const flag = `${shortFlag}--${name}${valueName}`;
    return [flag, s.help] as const;
  });
  const width = Math.max(...rows.map(([f]) => f.length)) + 2;
  return rows.map(([f, h]) => `  ${f.padEnd(width)}${h}`).join('\n');
}
