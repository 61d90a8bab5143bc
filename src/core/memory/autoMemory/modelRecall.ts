// Recall's model mode (`engram.memory.recall.mode: "model"`): one small call shows the model the index
// (one line per topic file: name, title, hook, description) and the user's message, and asks for the
// names of the files that would help, as JSON. The answer is read strictly (a JSON object with a
// `files` array of names from the list, at most `max`; an empty list, or a bare "none", attaches
// nothing, and the call still counts in the turn's figures); anything else, or a failed call, falls back
// to the local bar, so recall never blocks a turn on the model.
import { z } from 'zod';
import type { ModelClient } from '../../llm/modelClient';
import type { Usage } from '../../conversation/types';
import type { RecallPickInput } from './recall';
import { clearBar, type RankedTopic } from './recallRank';

/** Opens the request, so the test server's scripted model knows what it is asked. */
export const RECALL_PICK_MARKER = '<engram-recall-pick>';
/** The answer is a short JSON list. */
const PICK_MAX_TOKENS = 200;
/** A pick that takes longer than this is abandoned for the local ranking. */
const PICK_TIMEOUT_MS = 15_000;

const PickSchema = z.object({ files: z.array(z.string()) }).strict();

export interface ModelPickDeps {
  client: ModelClient;
  model: string;
  /** Told of each call's usage (the session's accounting). */
  onUsage?(usage: Usage): void;
  /** Told why a pick fell back to the local ranking. */
  onFallback?(reason: string): void;
}

/** A RecallOptions.pick that asks the model. */
export function modelPick(deps: ModelPickDeps): (input: RecallPickInput) => Promise<RankedTopic[]> {
  return async (input) => {
    const local = (): RankedTopic[] => clearBar(input.ranked, input.ranked.length).filter(input.fresh);
    const candidates = [...input.index.docs.values()].filter((d) => input.fresh({ file: d.id }));
    if (candidates.length === 0) return [];
    const lines = candidates.map((d) => `- ${d.id}: ${[d.title, d.hook, d.description].filter(Boolean).join(' — ')}`);
    const prompt =
      `${RECALL_PICK_MARKER}\nMemory files:\n${lines.join('\n')}\n\nUser message:\n${input.prompt}\n\n` +
      `Which of these files (at most ${input.max}) would clearly help answer the message? Usually none: a file ` +
      'that only shares a word with the message does not help. Reply with only JSON: {"files": ["name.md", ...]}, ' +
      'or {"files": []} when none would.';
    const signal = AbortSignal.timeout(PICK_TIMEOUT_MS);
    try {
      const response = await deps.client.stream(
        {
          model: deps.model,
          maxTokens: PICK_MAX_TOKENS,
          system: [
            {
              type: 'text',
              text: 'You choose which saved memory files are relevant to a message. You answer only with JSON.',
            },
          ],
          tools: [],
          messages: [{ role: 'user', content: prompt }],
          cache: { cacheTail: false },
        },
        {},
        signal,
      );
      deps.onUsage?.(response.usage);
      const text = response.content
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('')
        .trim();
      const names = parsePick(text, new Set(candidates.map((d) => d.id)));
      const score = new Map(input.ranked.map((r) => [r.file, r]));
      return names.slice(0, input.max).map((file) => score.get(file) ?? { file, score: 0, relevance: 0, words: [] });
    } catch (e) {
      deps.onFallback?.(e instanceof Error ? e.message : String(e));
      return local();
    }
  };
}

/** The names of a strict answer (none for a bare "none"), or throws why it is not one. */
function parsePick(text: string, known: ReadonlySet<string>): string[] {
  if (/^none\.?$/i.test(text)) return [];
  const json = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text)?.[1] ?? text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`the model's pick is not JSON: ${text.slice(0, 80)}`);
  }
  const parsed = PickSchema.safeParse(value);
  if (!parsed.success) throw new Error(`the model's pick is not {"files": [...]}: ${text.slice(0, 80)}`);
  const unknown = parsed.data.files.filter((f) => !known.has(f));
  if (unknown.length > 0) throw new Error(`the model picked files that are not in the list: ${unknown.join(', ')}`);
  return [...new Set(parsed.data.files)];
}
