// An answer that broke off mid-stream is kept (the person saw it, and the model can go on from it), but
// kept as it was it reads as a whole answer: the model would take its own unfinished sentence or list
// for what it meant to say. A note at its end says it was cut. The note is a block of the answer itself,
// so the transcript holds it too and a resumed session sends the very same bytes.
import type { TextBlock } from '../conversation/types';
import type { ModelError } from '../llm/errors';
import type { ModelResponse } from '../llm/modelClient';

export function cutOffNote(error: ModelError): TextBlock {
  const why = error.kind === 'connectionDropped' ? 'the connection broke' : 'the API failed';
  return { type: 'text', text: `[This reply was cut off: ${why} before it was complete.]` };
}

/** The partial answer of a failed call with the note added, when any of what the model said is kept. */
export function markedCutOff(partial: ModelResponse | undefined, error: ModelError): ModelResponse | undefined {
  if (!partial || partial.cancelled) return partial;
  const said = partial.content.some((b) => (b.type === 'text' && b.text.trim() !== '') || b.type === 'tool_use');
  return said ? { ...partial, content: [...partial.content, cutOffNote(error)] } : partial;
}
