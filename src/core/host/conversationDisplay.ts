// What a host needs to show a conversation the way the engine wrote it: which user blocks are
// attachments (a recalled memory, an `@file`) rather than the person's words, which tool results are
// notes standing for a repeated output, which engine notice the host shows in its own way, the words a
// person wrote in a preview document, the context gauge and the instruction files of an open session, and
// hidden characters written out for plain-text surfaces. Light on purpose: the
// extension loads it at activation, before the engine chunk (no model client, no memory engine here).
import { providerName } from '../llm/providerConfig';
import {
  FILE_ATTACHMENT_TAG,
  isFileAttachment as isFileTag,
  isMemoryAttachment as isMemoryTag,
} from '../conversation/attachmentTag';
import { isRepeatNote as isNote, repeatedCallOf as noteCallId } from '../conversation/repeatedResults';
import type { ToolResultBlock } from '../conversation/types';
import { withoutPreviewHeader } from '../compaction/summaryEdit';
import { gaugeState } from '../inspection/contextSnapshot';
import { instructionLabel } from '../memory/instructions';
import type { EngramSession } from '../session/engramSession';
import { isRecallNotice as isRecallTemplate } from '../session/sessionNotices';
import type { EngramSettings } from '../settings/engramSettings';
import type { NextTurnCost, TokenSplit } from '../llm/nextTurnCost';
import type { CacheCost, CacheSplit, GaugeState } from '../../protocol/messages';
import { hiddenCharsIn, showHiddenChars } from '../../protocol/hiddenChars';

export type { Usage } from '../conversation/types';

/** The tag that opens a file attached with `@path`; a host writing such an attachment starts it with this. */
export { FILE_ATTACHMENT_TAG };

/** Is this user text block a recalled memory the engine attached (shown folded, not as the prompt)? */
export function isMemoryAttachment(text: string): boolean {
  return isMemoryTag(text);
}

/** Is this user text block a workspace file attached with `@path` (not the person's words)? */
export function isFileAttachment(text: string): boolean {
  return isFileTag(text);
}

/** Is this tool result a note standing for an output the model already has (a repeat or a change)? */
export function isRepeatNote(block: ToolResultBlock): boolean {
  return isNote(block);
}

/** The id of the earlier call a repeat note names, so a view can link to it. */
export function repeatedCallOf(note: string): string | undefined {
  return noteCallId(note);
}

/** The recall notice's template: a host that lists the recalled memories itself leaves the line out. */
export function isRecallNotice(template: string): boolean {
  return isRecallTemplate(template);
}

/** What the person wrote in a preview document, without the note the host put at its top. */
export function previewText(document: string): string {
  return withoutPreviewHeader(document);
}

/**
 * The gauge a host shows for its session (none open: an empty gauge), framed by the settings: the same
 * numbers compaction decides on, brought up to date with the conversation first. With the offline demo
 * (`settings.offlineDemo`) the cost line carries no prices: the demo is free.
 */
export function sessionGauge(session: EngramSession | undefined, settings: EngramSettings): GaugeState {
  const state = gaugeState(session?.compaction.gauge, session?.agent, settings);
  if (!session) return state;
  const gauge = session.compaction.gauge;
  const cost = session.promptCache.cost(settings.model, state.usedTokens, gauge.fixedTokens, 0, gauge.measured);
  const uncounted = session.uncountedBy;
  const cache = cacheCost(cost, settings.offlineDemo);
  return { ...state, cache: uncounted ? { ...cache, localCountBy: providerName(uncounted) } : cache };
}

function cacheCost(c: NextTurnCost, free: boolean): CacheCost {
  const split = (t: TokenSplit): CacheSplit => ({
    read: t.read,
    write: t.write,
    input: t.input,
    ...(t.usd !== undefined && !free ? { usd: t.usd } : {}),
  });
  const cost: CacheCost = {
    warm: c.warm,
    leftMs: c.leftMs,
    ...(c.warm && c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}),
    ttl: c.ttl,
    ifWarm: split(c.ifWarm),
    ifCold: split(c.ifCold),
  };
  return free ? { ...cost, free: true } : cost;
}

/**
 * The instruction files (CLAUDE.md, AGENTS.md, their imports) in a session's system prompt, as a host
 * names them: by the path in the project, else from ~, with the path to open.
 */
export function instructionsShown(session: EngramSession): Array<{ label: string; path: string }> {
  return session.instructionFiles.map((f) => ({ label: instructionLabel(f.path, session.paths.cwd), path: f.path }));
}

/**
 * Plain text with each hidden character (a bidi override, a zero-width space) written out as `<U+202E>`,
 * and the distinct ones the given texts hold: for surfaces without styling (a terminal), as the
 * inspector shows spoofed names.
 */
export function markHiddenChars(text: string): string {
  return showHiddenChars(text);
}

export function hiddenCharsOf(...texts: string[]): string[] {
  return hiddenCharsIn(...texts);
}
