// The words auto memory puts in front of a model: the system prompt section (sent on every call, so it
// is short), the user message of the "Engram: Remember" command, and the background extractor's task.
// Snapshot tests pin them, so a change here is a deliberate one.
import { EXTRACTION_MAX_TURNS, MEMORY_INDEX_LINE_CHARS } from '../../thresholds';
import type { MemoryIndex } from './memoryIndex';

/** What every session is told about the memory folder, after the folder path and before the index. */
export const MEMORY_GUIDANCE = `Files in this folder persist across sessions of this project. MEMORY.md is only the index: one line per topic file, \`- [Title](file.md) — one-line hook\`, under ${MEMORY_INDEX_LINE_CHARS} characters; never put memory content in it. A topic file starts with front matter (name, description: one line used to judge relevance later, type) and then the memory. Types: user (who the user is, how they like to work), feedback (guidance the user gave about your work), project (goals, decisions, constraints not visible in the code), reference (where outside information lives). For feedback and project, state the rule or fact, then **Why:** and **How to apply:** lines.
When the user asks you to remember something, save it at once: update the fitting topic file or create one (e.g. feedback_testing.md), and add or update its index line. When asked to forget something, take it out of its file, and drop the file's index line when nothing is left. Never save secrets, or what the code or git history already says. A memory can be out of date: check it before relying on it.`;

/** The `memory` slot of buildSystemPrompt for a loaded index. */
export function memorySystemSlot(index: Pick<MemoryIndex, 'dir' | 'text'>): { dir: string; guidance: string; index: string } {
  return { dir: index.dir, guidance: MEMORY_GUIDANCE, index: index.text };
}

/** The user message an "Engram: Remember" command sends. */
export function rememberPrompt(text: string): string {
  const what = text.trim();
  if (what === '') throw new Error('Nothing to remember: the text is empty.');
  return `Remember this for future sessions of this project:\n\n${what}\n\nSave it in the memory folder now (update a fitting topic file or create one, with its MEMORY.md line), then say in one line what you saved and where.`;
}

export interface ExtractionPromptInput {
  memoryDir: string;
  /** How many of the last messages are new since the previous extraction. */
  newMessages: number;
  /** The current topic files, to update instead of duplicating. */
  topics: ReadonlyArray<{ file: string; type: string | null; description?: string }>;
  maxTurns?: number;
}

/** First words of the extractor's message: how logs and test servers recognise it. */
export const EXTRACTION_MARKER = '[Engram background memory pass]';

/** The extra user message the background extractor gets after the shared conversation. */
export function extractionPrompt(input: ExtractionPromptInput): string {
  const turns = input.maxTurns ?? EXTRACTION_MAX_TURNS;
  const manifest = input.topics.length === 0
    ? '(none yet)'
    : input.topics.map((t) => `- ${t.file}${t.type ? ` [${t.type}]` : ''}${t.description ? `: ${t.description}` : ''}`).join('\n');
  const scope = input.newMessages > 0 ? `the last ${input.newMessages} message${input.newMessages === 1 ? '' : 's'} above` : 'the conversation above';
  return `${EXTRACTION_MARKER} This message is not from the user, and nobody reads your reply.
Decide whether anything in ${scope} is worth keeping for future sessions of this project, and save it in the memory folder ${input.memoryDir}. Most turns hold nothing new; then reply "nothing to save" and stop.

Worth saving: who the user is and how they like to work (user); corrections or approaches the user confirmed (feedback); goals, decisions, deadlines and constraints the code does not show (project); where outside information lives (reference). Not worth saving: code structure, file contents, fixes and debugging steps (the code and git have them), details of this task only, anything already saved, secrets.

Topic files there now:
${manifest}

You have ${turns} model calls and the tool calls of one response run together, so:
1. First response: Read MEMORY.md and every topic file you may change, all at once (Write and Edit need a prior Read of an existing file).
2. Second response: all Write/Edit calls at once, with absolute paths inside the memory folder. Update a fitting file rather than adding a near-duplicate; fix or delete memories the conversation shows are wrong.
A new topic file: front matter with name, description (one line), type (user, feedback, project or reference), then the memory; for feedback and project the rule first, then **Why:** and **How to apply:** lines. Give each new file its MEMORY.md line: \`- [Title](file.md) — one-line hook\`.
You may only read, search, run read-only shell commands, and write inside the memory folder.
Finish with one line naming what you saved.`;
}
