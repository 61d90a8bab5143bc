// The chat's gauge state for a session: the orchestrator's own gauge (the number compaction decides
// on), framed by the settings, in the one model every surface shows (core/inspection/contextSnapshot).
import { gaugeState } from '../../core/inspection/contextSnapshot';
import type { EngramSession } from '../../core/session/hostSession';
import type { EngramSettings } from '../../core/settings/engramSettings';
import type { GaugeState } from '../../protocol/messages';

export function chatGauge(session: EngramSession | undefined, s: EngramSettings): GaugeState {
  return gaugeState(session?.compaction.gauge, session?.agent, s);
}
