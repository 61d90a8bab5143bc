// The inspector's checkpoint rows (issue 33): a click on a file a turn changed opens that turn's diff of it,
// for the live session (another session's turns are not this window's to show).
import type { Handlers, InspectorToHost } from '../../protocol/messages';
import type { InspectorChat } from './inspectorContext';
import type { InspectorSourceState } from './sourcePicker';

export function checkpointHandlers(
  chat: InspectorChat,
  source: () => InspectorSourceState,
): Handlers<Extract<InspectorToHost, { type: 'openCheckpointDiff' }>> {
  return {
    openCheckpointDiff: async (m) => {
      if (source().kind === 'current') await chat.checkpoints.openDiff(m, m.path);
    },
  };
}
