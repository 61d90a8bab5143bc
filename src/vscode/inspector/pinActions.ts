// The inspector's pin actions (issue 24): Remove on the pins list, and "Carry it" on a fact a compaction
// dropped (the timeline sends `pinText`), which pins that text in the live session. Only the current
// session's pins are acted on: a source on disk shows none.
import * as vscode from 'vscode';
import type { Handlers, InspectorToHost } from '../../protocol/messages';
import type { InspectorChat } from './inspectorContext';
import type { InspectorSourceState } from './sourcePicker';

type Report = (r: { text: string; level: 'info' | 'warning' | 'error' }) => void;
type PinRequest = Extract<InspectorToHost, { type: 'pinText' | 'unpin' }>;

export function pinHandlers(
  chat: InspectorChat,
  source: () => InspectorSourceState,
  report: Report,
  changed: () => void,
): Handlers<PinRequest> {
  const pins = () => (source().kind === 'current' ? chat.inspectorContext().pins : undefined);
  const failed = (e: unknown) =>
    report({
      text: vscode.l10n.t('Could not change the pins: {0}', e instanceof Error ? e.message : String(e)),
      level: 'error',
    });
  return {
    pinText: async (m) => {
      const store = pins();
      if (!store) return report({ text: vscode.l10n.t('Start a chat to pin text to it.'), level: 'warning' });
      try {
        await store.add(m.text, { kind: 'dropped' });
        report({ text: vscode.l10n.t('Pinned: it is carried through every compaction.'), level: 'info' });
      } catch (e) {
        failed(e);
      }
      changed();
    },
    unpin: async (m) => {
      try {
        if (await pins()?.remove(m.id)) report({ text: vscode.l10n.t('Pin removed.'), level: 'info' });
      } catch (e) {
        failed(e);
      }
      changed();
    },
  };
}
