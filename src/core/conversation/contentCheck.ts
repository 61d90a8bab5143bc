// What the reader accepts as the content of a transcript message: the Messages API's block shapes,
// checked with zod schemas as each line is read (DESIGN 3: readers skip or repair corrupt lines and
// report them). A block the API would reject (null, a text whose text is a number, a tool_use without
// an id, an image without a source, a block of a type the API does not take in that role) is dropped
// with the reason, so one bad block costs that block and not the session, and the line itself stays, so
// the parentUuid chain through it holds. A tool_use dropped here leaves its result an orphan and a
// tool_result dropped here leaves its call unanswered: the normaliser repairs both as it does for a
// crash. Valid blocks are kept as they are (no copy): the loader streams 100 MB at >= 50 MB/s.
import { z } from 'zod';
import { valueNestsDeeper } from './jsonDepth';

/** The API's pattern for tool_use ids (and the tool_use_id of a result). */
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

const source = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string() }),
  z.looseObject({ type: z.literal('file'), file_id: z.string() }),
  z.looseObject({ type: z.literal('text'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('content'), content: z.union([z.string(), z.array(z.unknown())]) }),
]);

const text = z.looseObject({ type: z.literal('text'), text: z.string() });
const image = z.looseObject({ type: z.literal('image'), source });
const document = z.looseObject({ type: z.literal('document'), source });

/** Blocks inside a tool_result's content list. */
const RESULT_ITEMS = new Map<string, z.ZodType>([
  ['text', text],
  ['image', image],
  ['document', document],
]);

const USER_BLOCKS = new Map<string, z.ZodType>([
  ...RESULT_ITEMS,
  [
    'tool_result',
    z.looseObject({
      type: z.literal('tool_result'),
      tool_use_id: z.string().regex(TOOL_ID),
      content: z.union([z.string(), z.array(z.unknown())]).optional(),
      is_error: z.boolean().optional(),
    }),
  ],
]);

const ASSISTANT_BLOCKS = new Map<string, z.ZodType>([
  ['text', text],
  ['thinking', z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() })],
  ['redacted_thinking', z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() })],
  [
    'tool_use',
    z.looseObject({
      type: z.literal('tool_use'),
      id: z.string().regex(TOOL_ID),
      name: z.string().min(1),
      input: z.record(z.string(), z.unknown()),
    }),
  ],
]);

const count = z.number().nullable().optional();
/** Usage as the gauge reads it; anything else is dropped, and the gauge estimates that response instead. */
const usage = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: count,
  cache_read_input_tokens: count,
});

export interface CheckedContent {
  /** The content with what the API would reject left out, or the same array when all of it is fine. */
  content: unknown[];
  /** One reason per block dropped or repaired, e.g. `content block 2 (text) dropped: text: ...`. */
  problems: string[];
}

/**
 * Checks a message's content blocks against the API's shapes for `role`. With `maxDepth`, a block that
 * nests deeper is dropped too (the caller found the line too deep; see jsonDepth.ts).
 */
export function checkContent(
  role: 'user' | 'assistant',
  content: readonly unknown[],
  opts: { maxDepth?: number } = {},
): CheckedContent {
  return checkBlocks(
    content,
    role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS,
    role === 'user' ? 'a user message' : 'an assistant message',
    'content block',
    opts.maxDepth,
  );
}

function checkBlocks(
  blocks: readonly unknown[],
  schemas: Map<string, z.ZodType>,
  where: string,
  label: string,
  maxDepth?: number,
): CheckedContent {
  let kept: unknown[] | undefined;
  const problems: string[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    const checked: BlockCheck =
      maxDepth !== undefined && valueNestsDeeper(block, maxDepth)
        ? { ok: false, reason: `nests deeper than ${maxDepth} levels` }
        : checkBlock(block, schemas, where);
    if (checked.ok && checked.block === block) {
      kept?.push(block);
      continue;
    }
    kept ??= blocks.slice(0, i);
    problems.push(`${label} ${i}${blockType(block)} ${checked.ok ? 'repaired' : 'dropped'}: ${checked.reason}`);
    if (checked.ok) kept.push(checked.block);
  }
  return { content: kept ?? (blocks as unknown[]), problems };
}

/** Why `value` is not usage the gauge can read, or undefined when it is. */
export function usageProblem(value: unknown): string | undefined {
  const r = usage.safeParse(value);
  return r.success ? undefined : issueText(r.error);
}

type BlockCheck = { ok: true; block: unknown; reason?: string } | { ok: false; reason: string };

function checkBlock(block: unknown, schemas: Map<string, z.ZodType>, where: string): BlockCheck {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) {
    const what = block === null ? 'null' : Array.isArray(block) ? 'a list' : `a ${typeof block}`;
    return { ok: false, reason: `${what} is not a content block (an object)` };
  }
  const type = (block as { type?: unknown }).type;
  const schema = typeof type === 'string' ? schemas.get(type) : undefined;
  if (!schema) {
    return {
      ok: false,
      reason:
        typeof type === 'string'
          ? `the API takes no "${type.slice(0, 40)}" block in ${where}`
          : 'a block without a "type"',
    };
  }
  const r = schema.safeParse(block);
  if (!r.success) return { ok: false, reason: issueText(r.error) };
  if (type === 'tool_result') return checkResultItems(block as { content?: unknown });
  return { ok: true, block };
}

/** A result's inner blocks: the bad ones are left out, the result stays (its call keeps its answer). */
function checkResultItems(block: { content?: unknown }): BlockCheck {
  if (!Array.isArray(block.content)) return { ok: true, block };
  const { content, problems } = checkBlocks(block.content, RESULT_ITEMS, 'a tool_result', 'item');
  if (problems.length === 0) return { ok: true, block };
  return { ok: true, block: { ...block, content: content.length > 0 ? content : '' }, reason: problems.join(', ') };
}

function blockType(block: unknown): string {
  const type = (block as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? ` (${type.slice(0, 40)})` : '';
}

function issueText(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`)
    .join('; ');
}
