import * as vscode from 'vscode';
import type { Agent } from '../core/agent/agent';
import type { CompactionEvent } from '../core/compaction/events';
import type { CompactionOrchestrator, OrchestratorEvent } from '../core/compaction/orchestrator';
import type { ChainStage } from '../core/compaction/pipeline';
import type { CompactionSettings } from '../core/compaction/settings';
import type { NotesSource } from '../core/compaction/notesSource';
import type { Logger } from '../core/ports';
import { loadEngine } from './loadEngine';

/** The `engram.compaction.*` settings that map one to one onto CompactionSettings. */
const SETTING_KEYS = [
  'auto', 'reactive', 'microcompactPercent', 'sessionMemoryPercent', 'fullPercent', 'keepRecentToolResults',
  'toolResultChars', 'keepMinTokens', 'keepMinTextMessages', 'keepMaxTokens',
] as const satisfies ReadonlyArray<keyof CompactionSettings>;

export function readCompactionSettings(): Partial<CompactionSettings> {
  const config = vscode.workspace.getConfiguration('engram');
  const settings: Partial<Record<keyof CompactionSettings, unknown>> = { contextWindow: config.get<number>('contextWindow', 200_000) };
  for (const key of SETTING_KEYS) {
    const value = config.get(`compaction.${key}`);
    if (value !== undefined) settings[key] = value;
  }
  return settings as Partial<CompactionSettings>;
}

export interface CompactionHost {
  notice(level: 'info' | 'warning' | 'error', text: string): void;
  compacted(event: CompactionEvent): void;
  undone(event: CompactionEvent): void;
}

const STAGE_NAMES: Record<string, string> = {
  micro: 'microcompact', 'session-memory': 'session notes', full: 'full summary', reactive: 'recovery',
};

/**
 * Compaction for the main chat agent: builds the orchestrator from settings, follows setting changes,
 * shows progress for model-written summaries and tells the user about failures in words.
 */
export class CompactionController implements vscode.Disposable {
  readonly orchestrator: CompactionOrchestrator;
  private readonly detach: () => void;
  private readonly disposables: vscode.Disposable[] = [];
  private progress: { report(text: string): void; done(): void } | undefined;

  constructor(agent: Agent, notes: NotesSource | undefined, private readonly host: CompactionHost, private readonly logger: Logger) {
    const { CompactionOrchestrator } = loadEngine();
    this.orchestrator = new CompactionOrchestrator({ settings: readCompactionSettings(), ...(notes ? { notes } : {}), logger });
    this.detach = this.orchestrator.attach(agent);
    const off = this.orchestrator.on((event) => this.onEvent(event));
    this.disposables.push({ dispose: off }, vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('engram.compaction') || e.affectsConfiguration('engram.contextWindow')) {
        this.orchestrator.updateSettings(readCompactionSettings());
      }
    }));
  }

  async compactNow(stage: ChainStage, focus?: string): Promise<boolean> {
    const result = await this.orchestrator.compactNow(stage, focus);
    if (!result.ok) this.host.notice('warning', `Could not compact (${stage}): ${result.reason ?? 'no reason given'}.`);
    return result.ok;
  }

  async undoLast(): Promise<boolean> {
    const ok = await this.orchestrator.undoLast();
    if (!ok) this.host.notice('warning', 'There is no compaction to undo, or the conversation changed since.');
    return ok;
  }

  get events(): readonly CompactionEvent[] {
    return this.orchestrator.events;
  }

  private onEvent(event: OrchestratorEvent): void {
    switch (event.type) {
      case 'compacted': {
        const e = event.event;
        const how = `${STAGE_NAMES[e.stage] ?? e.stage}${e.trigger === 'manual' ? '' : `, ${e.trigger}`}`;
        this.host.notice('info', `Context compacted (${how}): ${e.tokensBefore.toLocaleString('en-US')} → ${e.tokensAfter.toLocaleString('en-US')} tokens, ${e.modelCalls} model call${e.modelCalls === 1 ? '' : 's'}.`);
        this.host.compacted(e);
        break;
      }
      case 'progress':
        this.onProgress(event);
        break;
      case 'unavailable':
        this.logger.info(`Compaction: ${event.stage} unavailable (${event.code}): ${event.reason}`);
        break;
      case 'failed':
        this.host.notice('warning', `Compaction (${STAGE_NAMES[event.stage] ?? event.stage}) failed: ${event.reason}`);
        break;
      case 'autoCompactionStopped':
        this.host.notice('error', `Automatic compaction stopped after ${event.failures} failures in a row (${event.reason}). Run "Engram: Compact Now" or start a new chat.`);
        void vscode.window.showWarningMessage(vscode.l10n.t('Engram: automatic compaction stopped after {0} failures in a row.', event.failures),
          vscode.l10n.t('Compact Now'), vscode.l10n.t('Turn Back On')).then((choice) => {
          if (choice === vscode.l10n.t('Compact Now')) void this.compactNow('auto');
          if (choice === vscode.l10n.t('Turn Back On')) this.orchestrator.setAuto(true);
        });
        break;
      case 'undone':
        this.host.notice('info', 'The last compaction was undone: the replaced messages are back.');
        this.host.undone(event.event);
        break;
    }
  }

  /** A model-written summary takes a while: show it in a notification with progress. */
  private onProgress(event: Extract<OrchestratorEvent, { type: 'progress' }>): void {
    const p = event.progress;
    if (p.phase === 'started') {
      this.progress?.done();
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Engram: compacting the conversation') },
        (reporter) => new Promise<void>((resolve) => {
          this.progress = { report: (message) => reporter.report({ message }), done: resolve };
        }));
    } else if (p.phase === 'streaming') {
      this.progress?.report(vscode.l10n.t('writing the summary ({0} characters)', p.chars));
    } else {
      this.progress?.done();
      this.progress = undefined;
    }
  }

  dispose(): void {
    this.progress?.done();
    this.detach();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
