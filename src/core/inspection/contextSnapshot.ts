// The context gauge as every surface shows it (the status bar, the Chat view's header, the inspector,
// `engram gauge`): built here, once, from the ContextGauge compaction decides on and the settings, so
// they all show the same number. The categories follow DESIGN 7; recalled memories and the session
// notes that stand in for old messages are carved out of the messages, so the parts still add up.
// Light on purpose (no memory engine, no tokenizer load): the extension's activation bundle imports it.
import type { ApiMessage, SystemBlock } from '../conversation/types';
import { isMemoryAttachment } from '../conversation/attachmentTag';
import { compactionMarks, type EngramSettings } from '../settings/engramSettings';
import type { ContextBreakdown, TokenEstimator } from '../tokens/accounting';
import type { ContextGauge, OfferedTool } from '../tokens/contextGauge';
import type { GaugeCategory, GaugeState } from '../../protocol/messages';

/** The notes message session-memory compaction opens a conversation with (notesSummaryText) wraps them in this. */
export const SESSION_NOTES_TAG = '<session-notes>';

/** What the gauge measures: an agent (its messages, system prompt and tools), or a transcript's messages. */
export interface GaugeSubject {
  readonly messages: readonly ApiMessage[];
  /** When given, sized by the gauge unless the session already gave it this prompt's parts. */
  readonly systemPrompt?: readonly SystemBlock[];
  readonly offeredTools?: readonly OfferedTool[];
}

/** The settings' share of the gauge: the window, what is kept free for the answer, and the marks. */
export function gaugeFrame(settings: EngramSettings): Pick<GaugeState, 'window' | 'reservedForOutput' | 'marks'> {
  return {
    window: settings.contextWindow,
    reservedForOutput: settings.maxOutputTokens,
    marks: compactionMarks(settings),
  };
}

/**
 * The gauge's state for the protocol. `subject` is what the gauge measures; without a gauge or a
 * subject (no conversation yet) the gauge is empty. The gauge is brought up to date with the subject
 * first, so a reader never sees a stale count; cheap, as it adds only messages it has not seen.
 */
export function gaugeState(
  gauge: ContextGauge | undefined,
  subject: GaugeSubject | undefined,
  settings: EngramSettings,
): GaugeState {
  const frame = gaugeFrame(settings);
  if (!gauge || !subject) return { ...frame, usedTokens: 0, breakdown: [] };
  if (subject.systemPrompt) gauge.setSystem(subject.systemPrompt, subject.offeredTools ?? []);
  const b = gauge.breakdown(subject.messages);
  return {
    ...frame,
    usedTokens: b.total,
    breakdown: gaugeCategories(b, {
      recalled: recalledTokens(subject.messages, gauge.estimator),
      notes: notesTokens(subject.messages, gauge.estimator),
    }),
  };
}

/**
 * The categories of a breakdown, in the gauge's order. `recalled` and `notes` are estimates of what
 * the messages hold of recalled memories and of session notes; they are taken out of the messages.
 * MCP tool definitions are listed only when some are offered, so a session without MCP servers shows
 * the categories it always had.
 */
export function gaugeCategories(
  b: ContextBreakdown,
  extra: { recalled?: number; notes?: number } = {},
): Array<{ category: GaugeCategory; tokens: number }> {
  const recalled = clamp(extra.recalled ?? 0, b.messages);
  const notesInMessages = clamp(extra.notes ?? 0, b.messages - recalled);
  return [
    { category: 'system', tokens: b.system },
    { category: 'tools', tokens: b.tools },
    ...(b.mcpTools > 0 ? [{ category: 'mcp tools' as const, tokens: b.mcpTools }] : []),
    { category: 'instructions', tokens: b.instructions },
    { category: 'memory index', tokens: b.memoryIndex },
    { category: 'recalled memories', tokens: recalled },
    { category: 'session notes', tokens: b.notes + notesInMessages },
    { category: 'messages', tokens: b.messages - recalled - notesInMessages },
    { category: 'tool results', tokens: b.toolResults },
  ];
}

/** Tokens of the memories recall attached to prompts (text blocks opening with its tag). */
export function recalledTokens(messages: readonly ApiMessage[], estimator: TokenEstimator): number {
  let total = 0;
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'text' && isMemoryAttachment(b.text)) total += estimator.block(b);
  }
  return total;
}

/** Tokens of the session notes that replaced old messages: the opening message after a session-memory compaction. */
export function notesTokens(messages: readonly ApiMessage[], estimator: TokenEstimator): number {
  const first = messages[0];
  if (!first || first.role !== 'user') return 0;
  if (typeof first.content === 'string')
    return first.content.includes(SESSION_NOTES_TAG) ? estimator.message(first).messages : 0;
  let total = 0;
  for (const b of first.content)
    if (b.type === 'text' && b.text.includes(SESSION_NOTES_TAG)) total += estimator.block(b);
  return total;
}

function clamp(value: number, max: number): number {
  return Math.min(Math.max(0, value), Math.max(0, max));
}
