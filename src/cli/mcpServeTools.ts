// The tools `engram mcp` serves, each a thin door onto core's memory service (core/host/memory.ts): the
// same recall as a chat turn, the same writer, the same confinement. A refusal the client can act on
// (missing file, `..`, a secret) comes back as a tool error with its reason; so does anything unexpected,
// worded, so the server never goes down with a bad request.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  describeMemoryMatches,
  describeRememberOutcome,
  listProjectMemories,
  MEMORY_TYPES,
  MemoryRequestError,
  readProjectMemory,
  readProjectSessionNotes,
  rememberForClient,
  searchProjectMemory,
  type MemoryScope,
} from '../core/host/memory';

/** What the tools need besides the scope: the review setting and who the client is. */
export interface ServeOptions {
  scope: MemoryScope;
  /** engram.memory.extraction.review: remembered text waits for the person's review. */
  review: boolean;
  /** The connected client's name (its `clientInfo.name`), asked at each write. */
  clientName(): string;
  /** A memory was saved or proposed. */
  onWrite(): void;
  log(line: string): void;
}

const MatchShape = z.object({
  file: z.string(),
  title: z.string(),
  type: z.string().nullable(),
  team: z.boolean(),
  description: z.string(),
  text: z.string(),
  score: z.number(),
  matchedWords: z.array(z.string()),
  why: z.string(),
});

const EntryShape = z.object({
  file: z.string(),
  title: z.string(),
  hook: z.string(),
  type: z.string().nullable(),
  scope: z.enum(['private', 'team']),
  missing: z.boolean(),
});

export function registerMemoryTools(server: McpServer, opts: ServeOptions): void {
  const { scope } = opts;
  server.registerTool(
    'search_memory',
    {
      title: 'Search project memory',
      description:
        "Searches this project's saved memory (Engram's MEMORY.md topic files: conventions, decisions, " +
        'feedback, references) for a question, with the same recall Engram attaches memory with in its own ' +
        'chat. Returns each matched memory with its file, title, type, full text and why it matched. Often ' +
        'returns nothing: only memories that clearly bear on the question are returned.',
      inputSchema: {
        query: z.string().min(1).describe('The question or task, in plain words.'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(Math.max(1, scope.maxFiles))
          .optional()
          .describe('At most this many memories.'),
      },
      outputSchema: { matches: z.array(MatchShape) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(opts, 'search the memory', async () => {
        const matches = await searchProjectMemory(scope, args.query, args.limit);
        const text = describeMemoryMatches(args.query, matches);
        return { content: [{ type: 'text', text }], structuredContent: { matches } };
      }),
  );

  server.registerTool(
    'remember',
    {
      title: 'Remember in project memory',
      description:
        "Saves a fact in this project's memory, for Engram and every agent that reads it later: a " +
        "convention, a decision and its reason, the person's feedback, where something is. Written as a " +
        'topic file with a MEMORY.md index line; it records which client wrote it. Refused when the text holds ' +
        "a secret. When the person reviews memories first, it waits in Engram's review queue.",
      inputSchema: {
        text: z.string().min(1).describe('The memory: the fact or rule, then why and how to apply it.'),
        type: z
          .enum(MEMORY_TYPES)
          .optional()
          .describe(
            'user (about the person), feedback (how to work), project (default), reference (where things are).',
          ),
        title: z.string().max(200).optional().describe('A short title for the index (default: the first line).'),
      },
      outputSchema: {
        status: z.enum(['saved', 'proposed']),
        file: z.string(),
        title: z.string(),
        type: z.string(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(opts, 'save the memory', async () => {
        const client = opts.clientName();
        const outcome = await rememberForClient(
          scope,
          {
            text: args.text,
            ...(args.type ? { type: args.type } : {}),
            ...(args.title ? { title: args.title } : {}),
            client,
            via: 'mcp',
          },
          { review: opts.review },
        );
        opts.onWrite();
        opts.log(`${client} ${outcome.status === 'saved' ? 'saved' : 'proposed'} ${outcome.file}`);
        const text = describeRememberOutcome(outcome);
        const { status, file, title, type } = outcome;
        return { content: [{ type: 'text', text }], structuredContent: { status, file, title, type } };
      }),
  );

  server.registerTool(
    'list_memories',
    {
      title: 'List project memories',
      description:
        "Lists this project's memories as MEMORY.md indexes them: file, title, one-line hook, type, and " +
        'whether it is private or team memory. Read one with read_memory.',
      inputSchema: {},
      outputSchema: { memories: z.array(EntryShape) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(opts, 'list the memories', async () => {
        const memories = (await listProjectMemories(scope)).map((e) => ({
          file: e.file,
          title: e.title,
          hook: e.hook,
          type: e.type,
          scope: e.team ? ('team' as const) : ('private' as const),
          missing: e.missing,
        }));
        const text =
          memories.length === 0
            ? 'This project has no memories yet.'
            : memories
                .map(
                  (m) => `- ${m.file}: ${m.title}${m.hook ? ` — ${m.hook}` : ''} (${m.type ?? 'no type'}, ${m.scope})`,
                )
                .join('\n');
        return { content: [{ type: 'text', text }], structuredContent: { memories } };
      }),
  );

  server.registerTool(
    'read_memory',
    {
      title: 'Read a memory file',
      description:
        'Reads one memory file of this project, front matter included: a topic file named by list_memories or ' +
        'search_memory (e.g. feedback_testing.md, team/deploy.md), or MEMORY.md, the index.',
      inputSchema: { file: z.string().min(1).describe('Relative to the memory folder, e.g. MEMORY.md.') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(opts, 'read the memory', async () => ({
        content: [{ type: 'text', text: await readProjectMemory(scope, args.file) }],
      })),
  );

  server.registerTool(
    'read_session_notes',
    {
      title: 'Read session notes',
      description:
        "Reads the notes Engram keeps of one of this project's sessions (current state, task, files, errors " +
        'and corrections, learnings, worklog). Without session_id, the newest session that has notes.',
      inputSchema: {
        session_id: z
          .string()
          .min(1)
          .max(128)
          .optional()
          .describe('An Engram session id (default: the newest with notes).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(opts, 'read the session notes', async () => {
        const notes = await readProjectSessionNotes(scope, args.session_id);
        return {
          content: [
            { type: 'text', text: `Session ${notes.sessionId} (notes updated ${notes.updatedAt}):\n\n${notes.text}` },
          ],
        };
      }),
  );
}

/** Runs a tool's body; a refusal or failure becomes a tool error with words the client can act on. */
async function guarded(opts: ServeOptions, what: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (!(e instanceof MemoryRequestError)) opts.log(`could not ${what}: ${message}`);
    const text = e instanceof MemoryRequestError ? message : `Engram could not ${what}: ${message}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
}
