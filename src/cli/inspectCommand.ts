// `engram inspect`: what a data root holds, per project: auto memory (index entries, unindexed files,
// problems) and sessions (lines, unreadable lines, notes, compactions). Works on Engram's data dir and
// on Claude Code's (`--root ~/.claude`), whose layout is the same. Read-only.
import os from 'node:os';
import path from 'node:path';
import { findGitRoot, projectKey } from '../core/conversation/projectKey';
import { inspectRoot, type Inspection } from '../core/memory/autoMemory/projectInspection';
import { countTokens } from '../core/tokens/tokenizer';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { EXIT_OK, type CliIo, type Command } from './command';

const OPTIONS = {
  root: { type: 'string', valueName: 'DIR', help: 'Data root to read (default: $ENGRAM_DATA_DIR or ~/.engram; ~/.claude works too).' },
  project: { type: 'string', valueName: 'PATH', help: 'Only this project: its folder (or git root), or a project key.' },
  json: { type: 'boolean', help: 'Print JSON: {"root","projects":[{"key","memory","sessions"}]}.' },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

export const INSPECT_HELP = `Usage: engram inspect [--root DIR] [--project PATH] [--json]

Shows what a data root holds for each project: the auto memory index (entries with type, tokens,
whether they fit the 200-line / 25 KB cap, missing files), topic files the index does not list,
problems found while reading, and each session's line counts, notes and compactions.
Nothing is changed.

Options:
${formatOptions(OPTIONS)}`;

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'Show the memory and sessions stored under a data root (also ~/.claude).',
  run: runInspect,
};

async function runInspect(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${INSPECT_HELP}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const root = expandHome(options.root ?? io.env.ENGRAM_DATA_DIR ?? path.join(os.homedir(), '.engram'), io.cwd);
  const keys = options.project !== undefined ? await projectKeys(options.project, io.cwd) : undefined;
  const result = await inspectRoot(root, { ...(keys ? { keys } : {}), countTokens });
  if (options.project !== undefined && result.projects.length === 0) {
    io.stderr(`engram: no project data for ${options.project} under ${path.join(root, 'projects')}\n`);
  }
  io.stdout(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatText(result));
  return EXIT_OK;
}

function expandHome(p: string, cwd: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return path.resolve(cwd, p);
}

/** A key given as is, and the keys of the folder and of its git root (memory is keyed by the latter). */
async function projectKeys(project: string, cwd: string): Promise<string[]> {
  const abs = expandHome(project, cwd);
  const keys = new Set([project, projectKey(abs)]);
  const gitRoot = await findGitRoot(abs);
  if (gitRoot) keys.add(projectKey(gitRoot));
  return [...keys];
}

function formatText(result: Inspection): string {
  const out = [`Root: ${result.root}`];
  if (result.projects.length === 0) out.push('(no projects)');
  for (const p of result.projects) {
    out.push('', `Project ${p.key}`, `  Memory: ${p.memory.dir} (${p.memory.entries.length} entries)`);
    for (const e of p.memory.entries) {
      const flags = [e.type ?? 'untyped', e.tokens !== null ? `${e.tokens} tokens` : null, e.loaded ? null : 'not loaded', e.missing ? 'MISSING' : null]
        .filter(Boolean).join(', ');
      out.push(`    - ${e.title} (${e.file}) ${e.hook ? `— ${e.hook} ` : ''}[${flags}]`);
    }
    if (p.memory.unindexed.length > 0) out.push(`  Not in the index: ${p.memory.unindexed.join(', ')}`);
    for (const w of p.memory.warnings) out.push(`  Warning: ${w}`);
    out.push(`  Sessions: ${p.sessions.length}`);
    for (const s of p.sessions) {
      const parts = [`${s.lines} lines`, s.corruptLines ? `${s.corruptLines} unreadable` : null, s.hasNotes ? 'notes' : null,
        s.compactions.length ? `${s.compactions.length} compaction${s.compactions.length === 1 ? '' : 's'}` : null].filter(Boolean);
      out.push(`    ${s.id}: ${parts.join(', ')}`);
    }
  }
  return `${out.join('\n')}\n`;
}
