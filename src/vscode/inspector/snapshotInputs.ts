// What the inspector's snapshot is built from: the live session's context (its gauge, notes state and
// timeline, as data) or the paths of a source on disk, with the settings the gauge is framed by. Only
// gathering happens here; core/inspection builds the snapshot itself (through the lazy engine chunk).
import path from 'node:path';
import * as vscode from 'vscode';
import type { SnapshotInput } from '../../core/inspection/snapshotBuilder';
import type { EngramSettings } from '../../core/settings/engramSettings';
import { loadEngine } from '../loadEngine';
import { workspaceTrusted } from '../settings';
import type { InspectorContext } from './inspectorContext';
import type { InspectorSourceState } from './sourcePicker';

/** The live session's inputs ("Current session"). */
export async function currentSessionInput(ctx: InspectorContext, settings: EngramSettings, canUndoCompaction: boolean, now: number): Promise<SnapshotInput> {
  const engine = loadEngine().inspector;
  const project = engine.projectDir(ctx.dataDir, ctx.cwd);
  const memoryDir = ctx.memoryDir ?? (settings.memory.enabled ? await engine.autoMemoryDir(ctx.dataDir, ctx.cwd) : undefined);
  const paths = ctx.sessionId ? engine.sessionPaths(project, ctx.sessionId) : undefined;
  const state = ctx.notes?.state;
  return {
    source: { kind: 'current', label: vscode.l10n.t('Current session'), readOnly: false, root: ctx.dataDir, projectKey: path.basename(project) },
    sessionId: ctx.sessionId,
    transcriptPath: ctx.transcriptPath,
    gauge: ctx.gauge,
    settings,
    notes: {
      summaryPath: ctx.notes?.paths.summary ?? paths?.summary,
      statePath: ctx.notes?.paths.state ?? paths?.state,
      ...(ctx.notes ? { caps: ctx.notes.caps } : {}),
      ...(ctx.notes && state ? {
        live: {
          updating: ctx.notes.updating,
          ...(state.lastSummarizedMessageId ? { lastSummarizedMessageId: state.lastSummarizedMessageId } : {}),
          ...(state.updatedAt ? { updatedAt: state.updatedAt } : {}),
          ...(state.lastError ? { lastError: state.lastError } : {}),
        },
      } : {}),
    },
    memoryDir,
    instructions: { cwd: ctx.cwd, configDir: ctx.dataDir, trusted: workspaceTrusted() },
    timeline: ctx.timeline,
    canUndoCompaction,
    now,
  };
}

/** A session or project read from disk: no live gauge or events; the transcript and files say it all. */
export function diskSourceInput(s: Exclude<InspectorSourceState, { kind: 'current' }>, settings: EngramSettings, now: number): SnapshotInput {
  const projectDir = path.join(s.root, 'projects', s.projectKey);
  const paths = s.sessionId ? loadEngine().inspector.sessionPaths(projectDir, s.sessionId) : undefined;
  return {
    source: { kind: s.kind, label: s.label, readOnly: s.readOnly, root: s.root, projectKey: s.projectKey },
    sessionId: s.sessionId,
    transcriptPath: paths?.transcript,
    settings,
    notes: { summaryPath: paths?.summary, statePath: paths?.state },
    memoryDir: path.join(projectDir, 'memory'),
    instructions: { cwd: undefined, configDir: s.root, trusted: true },
    canUndoCompaction: false,
    now,
  };
}
