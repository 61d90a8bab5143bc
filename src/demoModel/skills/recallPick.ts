// The scripted answer to recall's model mode (core/memory/autoMemory/modelRecall.ts): reads the file
// list and the user's message from the request and picks, deterministically, the files whose line
// shares at least two content words with the message (at most the number asked for), as the JSON the
// engine expects. Enough for the bench and the tests to run model mode over real HTTP.
import { queryTerms } from '../../core/memory/autoMemory/recallText';
import type { DemoAnswer } from '../reply';
import type { DemoRequest } from '../request';

const LINE = /^- ([^:\n]+\.md): (.*)$/gm;

export function recallPick(req: DemoRequest): DemoAnswer {
  const message = /\nUser message:\n([\s\S]*?)\n\nWhich of these files \(at most (\d+)\)/.exec(req.prompt);
  const asked = new Set(queryTerms(message?.[1] ?? ''));
  const max = Number(message?.[2] ?? 0);
  const scored: Array<{ file: string; shared: number }> = [];
  for (const m of req.prompt.matchAll(LINE)) {
    const shared = queryTerms(m[2]).filter((t) => asked.has(t)).length;
    if (shared >= 2) scored.push({ file: m[1], shared });
  }
  const files = scored
    .sort((a, b) => b.shared - a.shared)
    .slice(0, max)
    .map((s) => s.file);
  return { content: [{ type: 'text', text: JSON.stringify({ files }) }] };
}
