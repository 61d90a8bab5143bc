// Runs the tool calls of one assistant message and answers every one of them, in order, whatever
// happens (denied, unknown tool, bad input, a throwing tool, cancellation): the API rejects a tool_use
// without its tool_result, so "no answer" is never an option. Every result is scanned for secrets and
// redacted here, before the model, the listeners (chat, events) and the transcript see it (issue #13).
import type { ToolResultBlock, ToolUseBlock } from '../conversation/types';
import { redactSecrets } from '../security/secretScan';
import { isReadOnlyCommand } from '../tools/bashReadOnly';
import type { Tool, ToolContext, ToolResult } from '../tools/tool';
import type { ToolGate } from './permissions';

export const CANCELLED_BY_USER = 'Cancelled by the user before this tool finished.';

export interface ToolCallOutcome {
  call: ToolUseBlock;
  result: ToolResult;
  block: ToolResultBlock;
}

export interface ToolRunDeps {
  tools: ReadonlyMap<string, Tool>;
  gate: ToolGate;
  /** The context every tool gets, minus the signal (given per run). */
  context: Omit<ToolContext, 'signal'>;
  signal: AbortSignal;
  /** Called as each call is answered (in completion order), so transcripts and UIs keep up. */
  onResult?(outcome: ToolCallOutcome): void;
  /**
   * Awaited before a call that may change files runs (the gate allowed it): the turn's checkpoint
   * (issue 33). It must not throw; if it does anyway, the call still runs.
   */
  beforeChange?(): Promise<void>;
}

/** One-line description of a call, safe for any input (summarize may assume a valid one). */
export function summarizeCall(tool: Tool | undefined, call: ToolUseBlock): string {
  if (!tool) return call.name;
  try {
    return tool.summarize(call.input);
  } catch {
    return call.name;
  }
}

/**
 * Consecutive concurrency-safe calls run together; any other call runs alone, after the ones before
 * it and before the ones after it, so side effects happen in the order the model wrote them.
 */
export async function runToolCalls(calls: ToolUseBlock[], deps: ToolRunDeps): Promise<ToolCallOutcome[]> {
  const outcomes: Array<ToolCallOutcome | undefined> = new Array(calls.length);
  let i = 0;
  while (i < calls.length) {
    let j = i + 1;
    if (isConcurrent(calls[i], deps)) while (j < calls.length && isConcurrent(calls[j], deps)) j++;
    // Permission prompts are asked one at a time and in order, even for a parallel batch.
    const allowed: number[] = [];
    for (let k = i; k < j; k++) {
      const early = await precheck(calls[k], deps);
      if (early) outcomes[k] = await finish(calls[k], early, deps);
      else allowed.push(k);
    }
    await Promise.all(
      allowed.map(async (k) => {
        outcomes[k] = await finish(calls[k], await execute(calls[k], deps), deps);
      }),
    );
    i = j;
  }
  return Promise.all(outcomes.map((o, k) => o ?? finish(calls[k], cancelledResult(), deps)));
}

function isConcurrent(call: ToolUseBlock, deps: ToolRunDeps): boolean {
  return deps.tools.get(call.name)?.concurrencySafe === true;
}

/** The reasons a call does not run, or undefined when it may. */
async function precheck(call: ToolUseBlock, deps: ToolRunDeps): Promise<ToolResult | undefined> {
  if (deps.signal.aborted) return cancelledResult();
  const tool = deps.tools.get(call.name);
  if (!tool)
    return errorResult(
      `There is no tool named "${call.name}". Use one of: ${[...deps.tools.keys()].join(', ') || '(none)'}.`,
    );
  const invalid = tool.validate(call.input);
  if (invalid) return errorResult(`Invalid input for ${call.name}: ${invalid}`);
  const decision = await deps.gate(tool, call.input, {
    toolUseId: call.id,
    summary: summarizeCall(tool, call),
    signal: deps.signal,
  });
  if (deps.signal.aborted) return cancelledResult();
  if (!decision.allow) return errorResult(decision.reason);
  return undefined;
}

async function execute(call: ToolUseBlock, deps: ToolRunDeps): Promise<ToolResult> {
  const tool = deps.tools.get(call.name);
  if (!tool) return errorResult(`There is no tool named "${call.name}".`);
  if (deps.signal.aborted) return cancelledResult();
  if (deps.beforeChange && mayChangeFiles(tool, call.input)) await deps.beforeChange().catch(() => undefined);
  if (deps.signal.aborted) return cancelledResult();
  const run = tool
    .run(call.input, { ...deps.context, signal: deps.signal })
    .catch(
      (e: unknown): ToolResult => errorResult(`${call.name} failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  // A tool that ignores the signal must not hold the conversation hostage.
  const signal = deps.signal;
  let onAbort = (): void => {};
  const aborted = new Promise<ToolResult>((resolve) => {
    onAbort = () => resolve(cancelledResult());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run, aborted]);
  } finally {
    // One listener per call would pile up on the turn's signal over a long turn.
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A tool that is not read-only, except a Bash command the project reads as read-only (bashReadOnly.ts) and
 * an MCP tool its server annotates read-only.
 */
function mayChangeFiles(tool: Tool, input: unknown): boolean {
  if (tool.readOnly || tool.mcp?.readOnlyHint === true) return false;
  const command = (input as { command?: unknown } | null)?.command;
  return !(tool.name === 'Bash' && typeof command === 'string' && isReadOnlyCommand(command).ok);
}

async function finish(call: ToolUseBlock, raw: ToolResult, deps: ToolRunDeps): Promise<ToolCallOutcome> {
  const result = await redacted(raw);
  const outcome: ToolCallOutcome = { call, result, block: toResultBlock(call.id, result) };
  deps.onResult?.(outcome);
  return outcome;
}

/**
 * The result with its secrets replaced. `data` is left: tools put metadata there (counts, paths, the
 * model's own edit strings), never the output itself.
 */
async function redacted(result: ToolResult): Promise<ToolResult> {
  let scan;
  let blocks: ToolResult['blocks'];
  try {
    scan = await redactSecrets(result.content);
    if (result.blocks) blocks = await redactBlocks(result.blocks);
  } catch (e) {
    // A scanner that fails must not let the text through unscanned.
    const why = e instanceof Error ? e.message : String(e);
    return {
      ...result,
      content: `The result could not be checked for secrets, so it is withheld (${why}).`,
      isError: true,
    };
  }
  const withBlocks = blocks ? { ...result, blocks } : result;
  return scan.findings.length === 0 ? withBlocks : { ...withBlocks, content: scan.text };
}

/** Every text block of a block result scanned like `content` (images pass as they are). */
async function redactBlocks(blocks: NonNullable<ToolResult['blocks']>): Promise<NonNullable<ToolResult['blocks']>> {
  return Promise.all(
    blocks.map(async (b) => {
      if (b.type !== 'text') return b;
      const scan = await redactSecrets(b.text);
      return scan.findings.length === 0 ? b : { ...b, text: scan.text };
    }),
  );
}

export function toResultBlock(toolUseId: string, result: ToolResult): ToolResultBlock {
  // The API rejects empty text blocks; an empty tool output still needs to say so.
  const blocks = result.blocks?.filter((b) => b.type !== 'text' || b.text !== '');
  const content = blocks && blocks.length > 0 ? blocks : result.content === '' ? '(no output)' : result.content;
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId, content };
  if (result.isError) block.is_error = true;
  return block;
}

export function errorResult(content: string): ToolResult {
  return { content, isError: true };
}

export function cancelledResult(): ToolResult {
  return errorResult(CANCELLED_BY_USER);
}
