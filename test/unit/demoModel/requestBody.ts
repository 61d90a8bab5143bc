// Request bodies shaped as the engine sends them to the demo model: the real system prompt (with the
// memory folder and its index), the real tools' schemas, and the messages given.
import { buildSystemPrompt } from '../../../src/core/agent/systemPrompt';
import { memorySystemSlot } from '../../../src/core/memory/autoMemory/memoryPrompts';
import { createDefaultTools } from '../../../src/core/tools/defaultTools';
import type { DemoAnswer } from '../../../src/demoModel/reply';

export const CWD = '/w/project';
export const MEMORY_DIR = '/d/projects/-w-project/memory';

export type Msg = { role: 'user' | 'assistant'; content: string | Array<Record<string, unknown>> };

export function requestBody(messages: Msg[], opts: { index?: string; memory?: boolean } = {}): Record<string, unknown> {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1000,
    system: buildSystemPrompt({
      cwd: CWD,
      platform: 'linux',
      date: '2026-12-02',
      ...(opts.memory === false ? {} : { memory: memorySystemSlot({ dir: MEMORY_DIR, text: opts.index ?? '' }) }),
    }),
    tools: createDefaultTools().map((t) => t.schema),
    messages,
  };
}

/** The tool calls of a reply. */
export function callsOf(reply: DemoAnswer): Array<{ name: string; input: Record<string, unknown> }> {
  return reply.content.flatMap((b) => (b.type === 'tool_use' ? [{ name: b.name, input: b.input }] : []));
}

export function textOf(reply: DemoAnswer): string {
  return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The conversation after the reply's calls got these results (ids made up, in order). */
export function withResults(messages: Msg[], reply: DemoAnswer, results: Array<string | { error: string }>): Msg[] {
  let n = messages.length * 10;
  const content = reply.content.map((b) => (b.type === 'tool_use' ? { ...b, id: `toolu_${n++}` } : b));
  const ids = content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
  return [
    ...messages,
    { role: 'assistant', content: content as Array<Record<string, unknown>> },
    {
      role: 'user',
      content: ids.map((id, i) => {
        const r = results[i];
        return typeof r === 'string'
          ? { type: 'tool_result', tool_use_id: id, content: r }
          : { type: 'tool_result', tool_use_id: id, content: r.error, is_error: true };
      }),
    },
  ];
}
