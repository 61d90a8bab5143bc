// A memory another agent asks to keep (`engram mcp`'s remember, VS Code's language model tool): written
// through the chat's own writer (memoryWriter.ts: a topic file with front matter and its index line where
// MEMORY.md still loads, atomic writes, the folder's lock), or, while engram.memory.extraction.review is
// on, queued for the person's review like the memory agent's proposals (pendingQueue.ts). Before either,
// the text is scanned for secrets with the scanner tool results go through: a hit refuses the write and
// names the rule and line, so no key lands in a plain-text file every agent reads. The file records who
// wrote it (`originClient`, `originVia`), which the inspector shows. Always the private folder: team
// memory is shared with other people, and a client's write goes there only through a person.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { readCapStatus } from './autoMemory/capWarning';
import { resolveMemoryFile } from './autoMemory/memoryPaths';
import { provenanceFields, writeMemory, type MemoryDoor, type MemoryProvenance } from './autoMemory/memoryWriter';
import { pendingFor, proposeMemory } from './autoMemory/pendingQueue';
import { formatTopicFile, isMemoryType, type MemoryType } from './autoMemory/topicFile';
import { findTeamSecret } from './team/teamSecrets';
import { MemoryRequestError, type MemoryScope } from './memoryService';

/** What a client asks to remember. */
export interface RememberRequest {
  text: string;
  /** Default `project`. */
  type?: MemoryType;
  /** The index line's title; default: the text's first line, shortened. */
  title?: string;
  /** Who asks: the MCP client's `clientInfo.name`, or `vscode-lm`. */
  client: string;
  via: MemoryDoor;
}

export type RememberOutcome =
  | {
      status: 'saved';
      /** Relative to the memory folder. */
      file: string;
      title: string;
      type: MemoryType;
      indexLine: string;
      /** Said when MEMORY.md is near or past what loads into a prompt (200 lines / 25 KB). */
      capNote?: string;
    }
  | { status: 'proposed'; file: string; title: string; type: MemoryType; reviewId: string };

const TITLE_MAX = 70;
const HOOK_MAX = 120;
const TEXT_MAX = 20_000;

/**
 * Saves `req.text` as a new topic file in the scope's private memory (or proposes it for review when
 * `review` is on). Refused with a MemoryRequestError when the text is empty, too long, of an unknown
 * type, or holds a secret.
 */
export async function rememberMemory(
  scope: MemoryScope,
  req: RememberRequest,
  opts: { review: boolean },
): Promise<RememberOutcome> {
  const text = typeof req.text === 'string' ? req.text.trim() : '';
  if (text === '') throw new MemoryRequestError('Nothing to remember: the text is empty.');
  if (text.length > TEXT_MAX)
    throw new MemoryRequestError(
      `The text is ${text.length} characters; a memory holds at most ${TEXT_MAX}. Keep the fact and its reason.`,
    );
  const type = req.type ?? 'project';
  if (!isMemoryType(type))
    throw new MemoryRequestError(
      `Unknown memory type ${JSON.stringify(type)}: use user, feedback, project or reference.`,
    );
  const title = shorten(req.title?.trim() || firstLine(text), TITLE_MAX);
  await refuseSecrets(`${title}\n${text}`);
  const hook = shorten(firstSentence(text), HOOK_MAX);
  const provenance: MemoryProvenance = {
    originSessionId: '',
    originMessageId: '',
    originClient: clientName(req.client),
    originVia: req.via,
  };
  const file = await freshName(scope.memoryDir, type, title);
  if (opts.review) {
    const content = formatTopicFile(
      { name: title, description: hook, type, ...provenanceFields(provenance) },
      `${text}\n`,
    );
    const item = await proposeMemory(scope.memoryDir, { file, content, sessionId: '', messageId: '' });
    return { status: 'proposed', file, title, type, reviewId: item.id };
  }
  const written = await writeMemory(scope.memoryDir, {
    file,
    title,
    hook,
    name: title,
    description: hook,
    type,
    body: `${text}\n`,
    provenance,
  });
  const cap = await readCapStatus(scope.memoryDir);
  const capNote =
    cap.level === 'ok'
      ? undefined
      : `MEMORY.md has ${cap.lines} of ${cap.maxLines} lines (${Math.round(cap.ratio * 100)}% of what loads into a prompt)` +
        (cap.level === 'over' ? '; lines past the cap are cut from every prompt' : '') +
        ": prune or merge memories in Engram's inspector.";
  return {
    status: 'saved',
    file: written.file,
    title,
    type,
    indexLine: written.indexLine,
    ...(capNote ? { capNote } : {}),
  };
}

/** What a remember did, in a sentence for the model that asked. */
export function describeRemembered(outcome: RememberOutcome): string {
  if (outcome.status === 'proposed')
    return (
      `Proposed ${outcome.file} ("${outcome.title}") for review: ` +
      "it is saved when the person accepts it in Engram's Memory Inspector."
    );
  const saved = `Saved ${outcome.file} ("${outcome.title}", ${outcome.type}) with its MEMORY.md line.`;
  return outcome.capNote ? `${saved} ${outcome.capNote}` : saved;
}

async function refuseSecrets(text: string): Promise<void> {
  const hit = await findTeamSecret(text);
  if (!hit) return;
  throw new MemoryRequestError(
    `Not saved: the text holds a secret (${hit.kind}, rule ${hit.rule}, line ${hit.line}). ` +
      'Memory is plain text that every agent on this project reads; remove the secret and say where it is kept instead.',
  );
}

/** A client name fit for front matter: one line, printable, short. */
function clientName(name: string): string {
  const clean = name.replace(/[^\x20-\x7e]+/g, ' ').trim();
  return clean.slice(0, 60) || 'unknown client';
}

/** `<type>_<words of the title>.md`, numbered when that name is taken (on disk or waiting for review). */
async function freshName(dir: string, type: MemoryType, title: string): Promise<string> {
  const words = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 48)
    .replace(/_+$/, '');
  const stem = `${type}_${words || createHash('sha256').update(title).digest('hex').slice(0, 8)}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${stem}.md` : `${stem}_${n}.md`;
    const taken = (await exists(resolveMemoryFile(dir, name))) || (await pendingFor(dir, name)) !== undefined;
    if (!taken) return name;
  }
}

async function exists(abs: string): Promise<boolean> {
  return fsp.lstat(abs).then(
    () => true,
    () => false,
  );
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/).find((l) => l.trim() !== '') ?? text).replace(/^[#>*\-\s]+/, '').trim();
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return m ? m[1] : flat;
}

function shorten(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return one;
  const cut = one.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
