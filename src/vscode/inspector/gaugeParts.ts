// What fills the context, by category, for the gauge (DESIGN 7): the fixed parts of every request
// (system prompt, CLAUDE.md instructions, the memory index, tool schemas) sized from the system prompt
// the agent sends, and the messages split into recalled memories, messages and tool results. The chat
// session feeds the fixed parts to its ConversationGauge once per session (they do not change within
// one) and maps its breakdown through gaugeCategories, so the status bar, the Chat view's gauge and the
// inspector show the same numbers. Plain Node.
import type { ApiMessage, SystemBlock, ToolSchema } from '../../core/conversation/types';
import { defaultTokenCounter, type ContextBreakdown, type FixedParts, type TokenCounter } from '../../core/tokens/accounting';

/** The headings buildSystemPrompt (src/core/agent/systemPrompt.ts) gives these sections. */
const INSTRUCTIONS_HEADING = '# Project and user instructions (CLAUDE.md)\n';
const MEMORY_HEADING = '\n\n# Memory\nMemory folder: ';
/** Recalled memories are attached to a prompt as text blocks opening with this tag (autoMemory/recall.ts). */
const RECALL_TAG = '<engram-memory';

/** Sizes of the parts of a request besides its messages. */
export function fixedPartsOf(system: readonly SystemBlock[], tools: ReadonlyArray<{ schema: ToolSchema }>, count: TokenCounter = defaultTokenCounter): Partial<FixedParts> {
  let systemText = '';
  let instructions = '';
  let memoryIndex = '';
  for (const block of system) {
    let text = block.text;
    const mem = text.lastIndexOf(MEMORY_HEADING);
    if (mem >= 0) {
      memoryIndex += text.slice(mem);
      text = text.slice(0, mem);
    }
    const inst = text.indexOf(INSTRUCTIONS_HEADING);
    if (inst >= 0) {
      instructions += text.slice(inst);
      text = text.slice(0, inst);
    }
    systemText += text;
  }
  const size = (s: string) => (s ? count(s) : 0);
  return {
    system: size(systemText),
    instructions: size(instructions),
    memoryIndex: size(memoryIndex),
    tools: tools.length ? count(JSON.stringify(tools.map((t) => t.schema))) : 0,
  };
}

const recallCache = new WeakMap<object, number>();

/** Tokens of the memories recall attached to prompts (they are part of the messages). */
export function recalledTokens(messages: readonly ApiMessage[], count: TokenCounter = defaultTokenCounter): number {
  let total = 0;
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'text' || !b.text.startsWith(RECALL_TAG)) continue;
      let t = recallCache.get(b);
      if (t === undefined) {
        t = count(b.text);
        recallCache.set(b, t);
      }
      total += t;
    }
  }
  return total;
}

/**
 * The gauge's categories from a ContextBreakdown. Recalled memories and session notes standing in for
 * old messages are carved out of the messages; the categories still add up to the breakdown's total.
 */
export function gaugeCategories(b: ContextBreakdown, extra: { recalled?: number; notes?: number } = {}): Array<{ category: string; tokens: number }> {
  const recalled = Math.min(Math.max(0, extra.recalled ?? 0), b.messages);
  const notesInMessages = Math.min(Math.max(0, extra.notes ?? 0), b.messages - recalled);
  return [
    { category: 'system', tokens: b.system },
    { category: 'tools', tokens: b.tools },
    { category: 'instructions', tokens: b.instructions },
    { category: 'memory index', tokens: b.memoryIndex },
    { category: 'recalled memories', tokens: recalled },
    { category: 'session notes', tokens: b.notes + notesInMessages },
    { category: 'messages', tokens: b.messages - recalled - notesInMessages },
    { category: 'tool results', tokens: b.toolResults },
  ];
}

const fixedCache = new WeakMap<readonly SystemBlock[], Partial<FixedParts>>();

/** fixedPartsOf, computed once per system prompt (an agent replaces the array when it changes it). */
export function fixedPartsFor(system: readonly SystemBlock[], tools: ReadonlyArray<{ schema: ToolSchema }>, count: TokenCounter = defaultTokenCounter): Partial<FixedParts> {
  let parts = fixedCache.get(system);
  if (!parts) {
    parts = fixedPartsOf(system, tools, count);
    fixedCache.set(system, parts);
  }
  return parts;
}
