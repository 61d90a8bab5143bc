// Tidy with review (issue 32 item 6): one model call is shown the private memory folder's topic files
// with their health (stale references and why, repeats, contradictions) and, for each stale path, what
// the workspace has now that may be the renamed thing (files of the same base name), and asked to
// propose merges, rewrites of stale entries against the current code, and deletions through one tool
// call whose input is checked with zod. Every change is checked again here: a file name that leaves the
// memory folder (`..`, an absolute path, a symlink out), the index itself, a file that is not one of the
// folder's memories, or a file two changes touch is refused with the reason, and the rest are kept as a
// proposal: per change the files' text before and after. Nothing is written here (tidyApply.ts applies).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { Usage } from '../../conversation/types';
import { ModelError } from '../../llm/errors';
import type { ModelClient } from '../../llm/modelClient';
import { readMemoryText } from '../autoMemory/memoryFiles';
import { loadMemoryIndex } from '../autoMemory/memoryIndex';
import { MemoryPathError, normaliseName, resolveMemoryFile } from '../autoMemory/memoryPaths';
import type { MemoryHealth } from '../health/healthTypes';
import { memoryHealth } from '../health/memoryHealth';
import { baseOf, listWorkspace } from '../health/workspaceFiles';
import type { TidyChange, TidyProposal, TidyRefusal } from './tidyTypes';

/** Opens the request, so the test server's scripted model knows what it is asked. */
export const TIDY_REQUEST_MARKER = '<engram-memory-tidy>';
/** The tool the model must call with its proposal. */
export const TIDY_TOOL_NAME = 'propose_memory_tidy';
const TIDY_MAX_TOKENS = 16_000;
/** A topic file longer than this is shown cut (and the model is told); a rewrite of it is then refused. */
const MAX_FILE_CHARS = 12_000;
/** A proposed file text longer than this is refused. */
const MAX_CONTENT_CHARS = 64_000;
const MAX_HINTS = 5;

const ChangeSchema = z
  .object({
    kind: z.enum(['merge', 'rewrite', 'delete']),
    files: z.array(z.string()).min(1).max(20),
    content: z.string().optional(),
    reason: z.string().min(1),
  })
  .strict();
const AnswerSchema = z.object({ changes: z.array(ChangeSchema).max(100) }).strict();
type ProposedChange = z.infer<typeof ChangeSchema>;

const TIDY_TOOL = {
  name: TIDY_TOOL_NAME,
  description: 'Propose changes to the memory folder. A person reviews each change before anything is written.',
  input_schema: {
    type: 'object',
    additionalProperties: false,
    required: ['changes'],
    properties: {
      changes: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'files', 'reason'],
          properties: {
            kind: { type: 'string', enum: ['merge', 'rewrite', 'delete'] },
            files: {
              type: 'array',
              items: { type: 'string' },
              description: 'merge: two or more files, the first keeps its name; rewrite and delete: one file.',
            },
            content: { type: 'string', description: 'merge and rewrite: the whole new text of the kept file.' },
            reason: { type: 'string', description: 'One sentence a person can check.' },
          },
        },
      },
    },
  },
};

const SYSTEM_TEXT =
  "You keep a coding assistant's memory folder true to the code base. You read its memory files with a " +
  'health report and propose a small number of careful changes through the propose_memory_tidy tool. ' +
  'You never invent facts: a rewrite only replaces what the report shows to be gone with what the ' +
  'workspace shows now, and keeps everything else the file says, its front matter included.';

/** What proposeTidy needs: the model and where memory and code live. */
export interface TidyDeps {
  client: ModelClient;
  model: string;
  onUsage?(usage: Usage): void;
  signal?: AbortSignal;
}

export interface TidyInput {
  /** The private memory folder (its team folder is left alone). */
  memoryDir: string;
  /** The workspace the references are checked against. */
  workspace: string;
  /** The health already computed (a host's live index); computed here when not given. */
  health?: readonly MemoryHealth[];
  now?: Date;
}

/** The model could not be asked, or did not give a proposal that can be read; nothing was proposed. */
export class TidyAnswerError extends Error {}

/** Asks the model once for a tidy of `input.memoryDir` and returns the checked proposal. */
export async function proposeTidy(deps: TidyDeps, input: TidyInput): Promise<TidyProposal> {
  const dir = input.memoryDir;
  const texts = await readTopics(dir);
  const createdAt = (input.now ?? new Date()).toISOString();
  const empty: TidyProposal = { id: proposalId(createdAt), memoryDir: dir, createdAt, changes: [], refused: [] };
  if (texts.size === 0) return { ...empty, note: 'The memory folder has no memories to tidy.' };
  const health = (input.health ?? (await memoryHealth({ memoryDir: dir, team: false }, input.workspace))).filter(
    (h) => !h.team && texts.has(h.file),
  );
  const hints = await renameHints(input.workspace, health);
  const prompt = tidyPrompt(texts, health, hints);
  const response = await deps.client
    .stream(
      {
        model: deps.model,
        maxTokens: TIDY_MAX_TOKENS,
        system: [{ type: 'text', text: SYSTEM_TEXT }],
        tools: [TIDY_TOOL],
        messages: [{ role: 'user', content: prompt }],
        cache: { cacheTail: false },
      },
      {},
      deps.signal ?? new AbortController().signal,
    )
    .catch((e: unknown) => {
      if (e instanceof ModelError) throw new TidyAnswerError(`The model could not be asked for a tidy: ${e.message}`);
      throw e;
    });
  deps.onUsage?.(response.usage);
  if (response.cancelled) throw new TidyAnswerError('The tidy was cancelled; nothing was proposed.');
  const call = response.content.find((b) => b.type === 'tool_use' && b.name === TIDY_TOOL_NAME);
  if (!call || call.type !== 'tool_use')
    throw new TidyAnswerError(`The model did not call ${TIDY_TOOL_NAME}; nothing was proposed. Try again.`);
  const parsed = AnswerSchema.safeParse(call.input);
  if (!parsed.success)
    throw new TidyAnswerError(
      `The model's proposal does not have the expected shape (${parsed.error.issues[0]?.message ?? 'invalid'}); ` +
        'nothing was proposed. Try again.',
    );
  return { ...empty, ...checkChanges(dir, texts, parsed.data.changes, createdAt) };
}

function proposalId(createdAt: string): string {
  return `${createdAt.replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
}

/** The private folder's indexed topic files and their text, by name. */
async function readTopics(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const index = await loadMemoryIndex(dir).catch(() => undefined);
  for (const t of index?.topics ?? []) {
    if (t.file.includes('/')) continue; // team memory and sub folders have their own index
    try {
      out.set(t.file, await readMemoryText(dir, path.join(dir, t.file)));
    } catch {
      // gone or refused since the index listed it
    }
  }
  return out;
}

/** Per stale path reference, the workspace's files of the same base name (the likely new place). */
async function renameHints(workspace: string, health: readonly MemoryHealth[]): Promise<Map<string, string[]>> {
  const refs = health.flatMap((h) => h.stale.filter((s) => s.kind === 'path').map((s) => s.ref));
  const out = new Map<string, string[]>();
  if (refs.length === 0) return out;
  const ws = await listWorkspace(workspace).catch(() => undefined);
  if (!ws) return out;
  for (const ref of refs) {
    const found = [...(ws.byBase.get(baseOf(ref)) ?? [])].slice(0, MAX_HINTS);
    if (found.length > 0) out.set(ref, found);
  }
  return out;
}

/** The request: every memory in full with its health, then what to do. */
export function tidyPrompt(
  texts: ReadonlyMap<string, string>,
  health: readonly MemoryHealth[],
  hints: ReadonlyMap<string, string[]>,
): string {
  const byFile = new Map(health.map((h) => [h.file, h]));
  const parts = [TIDY_REQUEST_MARKER, `The memory folder holds ${texts.size} memory files.`];
  for (const [file, text] of texts) {
    const h = byFile.get(file);
    const lines = [`### file: ${file}`];
    for (const s of h?.stale ?? []) {
      const hint = hints.get(s.ref);
      lines.push(`stale ${s.kind} ${s.ref}: ${s.reason}${hint ? ` (the workspace now has: ${hint.join(', ')})` : ''}`);
    }
    if (h?.duplicates.length) lines.push(`repeats: ${h.duplicates.join(', ')}`);
    for (const [i, c] of (h?.contradicts ?? []).entries())
      lines.push(`contradicts: ${c}${h?.contradictionNotes?.[i] ? ` (${h.contradictionNotes[i]})` : ''}`);
    if (h)
      lines.push(`recalled ${h.recalled}, used ${h.used}, not relevant ${h.notRelevant}, corrected ${h.corrected}`);
    const cut = text.length > MAX_FILE_CHARS;
    lines.push(cut ? `(only its first ${MAX_FILE_CHARS} characters are shown; do not rewrite it)` : '(whole file)');
    lines.push('<<<', cut ? text.slice(0, MAX_FILE_CHARS) : text, '>>>');
    parts.push(lines.join('\n'));
  }
  parts.push(
    [
      'Propose changes by calling propose_memory_tidy once:',
      '- merge: files that repeat each other become the first file; give its whole new text (keep its front matter).',
      '- rewrite: a file with stale references; give its whole new text, naming what the workspace has now. ' +
        'Only when the report shows where the thing went; otherwise propose nothing or a delete.',
      '- delete: a file that is wrong, obsolete or wholly repeated elsewhere.',
      'Use only the file names above. Leave healthy files alone. Fewer, sure changes beat many guesses; an ' +
        'empty list is a fine answer. Each change needs a one-sentence reason.',
    ].join('\n'),
  );
  return parts.join('\n\n');
}

/** Splits the model's changes into those that can be shown and those refused (with the reason). */
function checkChanges(
  dir: string,
  texts: ReadonlyMap<string, string>,
  proposed: readonly ProposedChange[],
  createdAt: string,
): { changes: TidyChange[]; refused: TidyRefusal[] } {
  const changes: TidyChange[] = [];
  const refused: TidyRefusal[] = [];
  const touched = new Set<string>();
  for (const [i, p] of proposed.entries()) {
    const problem = changeProblem(dir, texts, p, touched);
    if (problem) {
      refused.push({ kind: p.kind, files: p.files, reason: problem });
      continue;
    }
    const names = p.files.map(normaliseName);
    for (const n of names) touched.add(n);
    const [first, ...rest] = names;
    const files =
      p.kind === 'delete'
        ? [{ file: first, before: texts.get(first) ?? '', after: null }]
        : [
            { file: first, before: texts.get(first) ?? '', after: withEol(p.content ?? '') },
            ...rest.map((file) => ({ file, before: texts.get(file) ?? '', after: null })),
          ];
    changes.push({ id: `c${i + 1}`, kind: p.kind, reason: p.reason.trim(), files, proposedAt: createdAt });
  }
  return { changes, refused };
}

function changeProblem(
  dir: string,
  texts: ReadonlyMap<string, string>,
  p: ProposedChange,
  touched: ReadonlySet<string>,
): string | undefined {
  if (p.kind === 'merge' && p.files.length < 2) return 'a merge needs two or more files';
  if (p.kind !== 'merge' && p.files.length !== 1) return `a ${p.kind} names exactly one file`;
  for (const f of p.files) {
    try {
      resolveMemoryFile(dir, f);
    } catch (e) {
      if (e instanceof MemoryPathError) return `${e.message} Changes stay inside the memory folder.`;
      throw e;
    }
    const name = normaliseName(f);
    if (!texts.has(name)) return `${JSON.stringify(f)} is not one of this folder's memories`;
    if (touched.has(name)) return `${name} is already changed by an earlier change`;
  }
  if (new Set(p.files.map(normaliseName)).size !== p.files.length) return 'a file is named twice';
  if (p.kind === 'delete') return undefined;
  const content = p.content ?? '';
  if (content.trim() === '') return `a ${p.kind} needs the new text of the file`;
  if (content.length > MAX_CONTENT_CHARS) return `the new text is longer than ${MAX_CONTENT_CHARS} characters`;
  const first = normaliseName(p.files[0]);
  if ((texts.get(first)?.length ?? 0) > MAX_FILE_CHARS) return `${first} was shown cut, so it is not rewritten`;
  if (p.kind === 'rewrite' && withEol(content) === texts.get(first)) return 'the rewrite changes nothing';
  return undefined;
}

function withEol(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
