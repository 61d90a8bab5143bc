// The model's check for contradictions between memories (issue 32 item 3), run only when a model call
// was asked for (the tidy of helper m4, never a turn): one call shows the model the memories (name and
// text, each clipped) and asks which pairs give opposite instructions on the same subject, as JSON. The
// answer is read strictly: names from the list only, never a memory paired with itself; anything else
// is an error with the reason, so a caller can say the check failed instead of reporting nothing.
// The local table of rivalChoices.ts stays the first word; this finds what it cannot (two memories that
// disagree on a deploy target or a naming rule).
import { z } from 'zod';
import type { Usage } from '../../conversation/types';
import type { ModelClient } from '../../llm/modelClient';
import type { MemoryDoc } from './repeats';

/** Opens the request, so logs and the test server's scripted model know what it is asked. */
export const CONTRADICTION_CHECK_MARKER = '<engram-contradiction-check>';
/** Each memory's text is cut to this many characters, and at most MAX_DOCS are sent. */
const MAX_TEXT = 800;
const MAX_DOCS = 80;
const MAX_TOKENS = 1_500;
const TIMEOUT_MS = 60_000;

const Answer = z
  .object({ contradictions: z.array(z.object({ a: z.string(), b: z.string(), note: z.string() }).strict()) })
  .strict();

export interface ModelCheckDeps {
  client: ModelClient;
  model: string;
  /** Told of the call's usage (the caller's accounting). */
  onUsage?(usage: Usage): void;
  signal?: AbortSignal;
}

/** A pair the model says contradicts, with its note ("deploy target: a says Fly.io, b says Render"). */
export interface ModelContradiction {
  a: string;
  b: string;
  note: string;
}

/**
 * Asks the model once which pairs of `docs` contradict each other. Throws, with the reason, on a failed
 * call or an answer that is not the strict JSON (so the caller can tell "none found" from "not checked").
 */
export async function modelContradictions(
  docs: readonly MemoryDoc[],
  deps: ModelCheckDeps,
): Promise<ModelContradiction[]> {
  const sent = docs.slice(0, MAX_DOCS);
  if (sent.length < 2) return [];
  const listed = sent.map((d) => `### ${d.file}\n${clipText(d.text)}`).join('\n\n');
  const prompt =
    `${CONTRADICTION_CHECK_MARKER}\nSaved memories of one project:\n\n${listed}\n\n` +
    'Which pairs of these give opposite instructions or state incompatible facts about the same subject? ' +
    'Only clear conflicts: two memories on one topic that can both be true are not a pair. Reply with only JSON: ' +
    '{"contradictions": [{"a": "name.md", "b": "other.md", "note": "subject: what a says vs what b says"}]}, ' +
    'or {"contradictions": []}.';
  const signal = deps.signal ?? AbortSignal.timeout(TIMEOUT_MS);
  const response = await deps.client.stream(
    {
      model: deps.model,
      maxTokens: MAX_TOKENS,
      system: [{ type: 'text', text: 'You compare saved memory files for conflicts. You answer only with JSON.' }],
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
  return parseAnswer(text, new Set(sent.map((d) => d.file)));
}

function parseAnswer(text: string, known: ReadonlySet<string>): ModelContradiction[] {
  const json = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text)?.[1] ?? text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`The model's contradiction check is not JSON: ${text.slice(0, 80)}`);
  }
  const parsed = Answer.safeParse(value);
  if (!parsed.success)
    throw new Error(`The model's contradiction check is not {"contradictions": [...]}: ${text.slice(0, 80)}`);
  const out: ModelContradiction[] = [];
  for (const c of parsed.data.contradictions) {
    const unknown = [c.a, c.b].filter((f) => !known.has(f));
    if (unknown.length > 0) throw new Error(`The model named memories that were not sent: ${unknown.join(', ')}`);
    if (c.a === c.b) throw new Error(`The model paired ${c.a} with itself.`);
    if (!out.some((o) => (o.a === c.a && o.b === c.b) || (o.a === c.b && o.b === c.a)))
      out.push({ a: c.a, b: c.b, note: c.note.replace(/\s+/g, ' ').trim().slice(0, 300) });
  }
  return out;
}

function clipText(text: string): string {
  const t = text.trim();
  return t.length <= MAX_TEXT ? t : `${t.slice(0, MAX_TEXT)}…`;
}
