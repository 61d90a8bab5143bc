// What the loop keeps of a model's answer: the blocks that go into the conversation (by the rules a
// resumed session reads them back with), its text, and the reason the turn ends when it stops.
import type { AssistantBlock } from '../conversation/types';
import type { ModelResponse } from '../llm/modelClient';
import type { TurnEndReason } from './events';

/**
 * What of an answer goes into the conversation, by the same rules the transcript normaliser applies
 * when a session is read back, so a resumed session sends the very bytes this one sent (and hits the
 * cache): no blank text blocks (the API rejects them), and an answer that ends the turn loses
 * trailing whitespace (the API rejects it on a final assistant message). A partial answer with only
 * thinking in it says nothing and is not kept.
 */
export function keptContent(response: ModelResponse | undefined): AssistantBlock[] {
  if (!response) return [];
  let content = response.content.filter((b) => b.type !== 'text' || b.text.trim() !== '');
  if (response.partial && !content.some((b) => b.type === 'text' || b.type === 'tool_use')) return [];
  const last = content[content.length - 1];
  if (last?.type === 'text' && /\s$/.test(last.text) && !content.some((b) => b.type === 'tool_use')) {
    content = [...content.slice(0, -1), { ...last, text: last.text.trimEnd() }];
  }
  return content;
}

export function stopToEnd(stop: ModelResponse['stopReason']): TurnEndReason {
  switch (stop) {
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    case 'stop_sequence':
      return 'stop_sequence';
    default:
      return 'end_turn';
  }
}

export function textOf(content: AssistantBlock[]): string {
  return content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
}
