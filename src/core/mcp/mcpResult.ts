// What an MCP tool call answered, turned into a tool result the model and the memory engine take like any
// other: text stays text; an image becomes an image block (kinds the API shows; others a note); audio, a
// blob resource or an unknown block becomes a short note; a resource link a line naming it; an embedded
// text resource its text; `structuredContent` its JSON unless a text block already says the same;
// `isError` the result's error flag. Output over the cap is cut with a note saying how much was left out.
// A huge answer is cut by characters before anything is tokenized, so 10 MB costs no more than the cap.
import type { ImageBlock, TextBlock } from '../conversation/types';
import { countTokens, estimateTokensFast, isTokenizerLoaded } from '../tokens/tokenizer';
import type { ToolResult } from '../tools/tool';

export const DEFAULT_MAX_OUTPUT_TOKENS = 25_000;
/** Media types the API shows as images. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** The API's size limit for one image (base64 text). */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

type Part = { kind: 'text'; text: string } | { kind: 'image'; block: ImageBlock };

/** Maps a `tools/call` result (any shape a server sends) to a ToolResult, cut at `maxTokens`. */
export function mapCallResult(raw: unknown, maxTokens = DEFAULT_MAX_OUTPUT_TOKENS): ToolResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  const parts: Part[] = [];
  const content = Array.isArray(r.content) ? r.content : [];
  for (const item of content) parts.push(mapBlock(item));
  if (r.structuredContent !== undefined && !saysTheSame(parts, r.structuredContent))
    parts.push({ kind: 'text', text: safeJson(r.structuredContent) });
  if (content.length === 0 && r.toolResult !== undefined) parts.push({ kind: 'text', text: safeJson(r.toolResult) });
  const cut = capParts(parts, maxTokens);
  const result: ToolResult = { content: textForm(cut), isError: r.isError === true };
  if (cut.some((p) => p.kind === 'image'))
    result.blocks = cut.map((p): TextBlock | ImageBlock =>
      p.kind === 'text' ? { type: 'text', text: p.text } : p.block,
    );
  return result;
}

function mapBlock(item: unknown): Part {
  const b = (item ?? {}) as Record<string, unknown>;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  switch (b.type) {
    case 'text':
      return { kind: 'text', text: str(b.text) };
    case 'image': {
      const data = str(b.data);
      const mime = str(b.mimeType);
      if (!IMAGE_TYPES.has(mime))
        return note(`[image of type ${mime || 'unknown'} left out: the model takes only JPEG, PNG, GIF and WebP]`);
      if (data.length > MAX_IMAGE_BASE64) return note(`[image left out: ${sizeOf(data)}, over the 5 MB the API takes]`);
      return { kind: 'image', block: { type: 'image', source: { type: 'base64', media_type: mime, data } } };
    }
    case 'audio':
      return note(
        `[audio (${str(b.mimeType) || 'unknown type'}, ${sizeOf(str(b.data))}) not shown: the model does not take audio]`,
      );
    case 'resource_link': {
      const mime = str(b.mimeType) ? ` (${str(b.mimeType)})` : '';
      const about = str(b.description) ? ` - ${str(b.description)}` : '';
      return note(`Resource link: ${str(b.name) || str(b.uri)} <${str(b.uri)}>${mime}${about}`);
    }
    case 'resource': {
      const res = (b.resource ?? {}) as Record<string, unknown>;
      if (typeof res.text === 'string') return { kind: 'text', text: res.text };
      const mime = str(res.mimeType) || 'unknown type';
      return note(`[resource ${str(res.uri)} (${mime}, ${sizeOf(str(res.blob))}) is binary and not shown]`);
    }
    default:
      return note(`[a result block of type ${JSON.stringify(b.type ?? null)} is not shown]`);
  }
}

function note(text: string): Part {
  return { kind: 'text', text };
}

function sizeOf(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  if (bytes < 1024) return `${bytes} bytes`;
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '[structured content that is not JSON]';
  }
}

/** Whether a text block already holds `structured` as JSON (servers often send both). */
function saysTheSame(parts: readonly Part[], structured: unknown): boolean {
  const want = safeJson(structured);
  return parts.some((p) => {
    if (p.kind !== 'text' || p.text.length > want.length * 2 + 1000) return false;
    try {
      return JSON.stringify(JSON.parse(p.text)) === want;
    } catch {
      return false;
    }
  });
}

function textForm(parts: readonly Part[]): string {
  return parts
    .map((p) => (p.kind === 'text' ? p.text : `[image: ${p.block.source.media_type}, ${sizeOf(p.block.source.data)}]`))
    .join('\n');
}

function tokensOf(text: string): number {
  return isTokenizerLoaded() ? countTokens(text) : estimateTokensFast(text);
}

/**
 * The parts with their text cut to `maxTokens` and a closing note saying how much was left out. The text
 * is first cut by characters (four per token, a generous bound), so a 10 MB answer is never tokenized.
 */
function capParts(parts: Part[], maxTokens: number): Part[] {
  const texts = parts.filter((p): p is Part & { kind: 'text' } => p.kind === 'text');
  const total = texts.reduce((n, p) => n + p.text.length + 1, 0);
  if (total <= maxTokens) return parts; // a token is at least a character
  let budget = Math.min(total, maxTokens * 4);
  const joinedHead = (chars: number): string => headOf(texts, chars).join('\n');
  let tokens = tokensOf(joinedHead(budget));
  if (budget === total && tokens <= maxTokens) return parts;
  while (tokens > maxTokens && budget > 0) {
    budget = Math.floor((budget * maxTokens) / tokens / 1.02);
    tokens = tokensOf(joinedHead(budget));
  }
  const keptHeads = headOf(texts, budget);
  const out: Part[] = [];
  let t = 0;
  for (const p of parts) {
    if (p.kind === 'image') out.push(p);
    else if (t < keptHeads.length && keptHeads[t] !== '') out.push({ kind: 'text', text: keptHeads[t++] });
    else t++;
  }
  const leftChars = total - budget;
  const leftTokens = Math.ceil(leftChars / 4);
  out.push(
    note(
      `[Output cut at about ${maxTokens.toLocaleString('en-US')} tokens: ${leftChars.toLocaleString('en-US')} more ` +
        `characters (about ${leftTokens.toLocaleString('en-US')} tokens) were left out. Ask for less, e.g. a narrower query or a page.]`,
    ),
  );
  return out;
}

/** The first `chars` characters of the texts taken in order, one string per text (empty past the budget). */
function headOf(texts: ReadonlyArray<{ text: string }>, chars: number): string[] {
  let left = chars;
  return texts.map((p) => {
    const take = Math.max(0, Math.min(left, p.text.length));
    left -= take + 1;
    return p.text.slice(0, take);
  });
}
