// The inspector's MCP buttons (issue 30): Approve a repository's server, turn a server or one of its tools
// off or on for this project, and Restart a failed server. Each change is kept in the project's MCP
// choices and applied at once to the open chat session's hub (which starts or stops what the change
// allows or refuses); with no session open it applies to the next one. Only the current source acts.
import * as vscode from 'vscode';
import type { Handlers, InspectorToHost } from '../../protocol/messages';
import { approveByName, changeMcpChoices } from '../mcp/mcpServers';
import type { InspectorChat } from './inspectorContext';
import type { InspectorSourceState } from './sourcePicker';

type Report = (r: { text: string; level: 'info' | 'warning' | 'error' }) => void;
type McpRequest = Extract<InspectorToHost, { type: 'mcpApprove' | 'mcpSetServer' | 'mcpSetTool' | 'mcpRestart' }>;

export function mcpHandlers(
  chat: InspectorChat,
  source: () => InspectorSourceState,
  report: Report,
  changed: () => void,
): Handlers<McpRequest> {
  const hub = () => chat.inspectorContext().mcpHub;
  /** Runs a change for the current source only, then says what happened and redraws. */
  const act = async (change: () => Promise<string | undefined>) => {
    if (source().kind !== 'current') return;
    try {
      const said = await change();
      if (said) report({ text: said, level: 'info' });
    } catch (e) {
      report({
        text: vscode.l10n.t('Could not change the MCP servers: {0}', e instanceof Error ? e.message : String(e)),
        level: 'error',
      });
    }
    changed();
  };
  const toggle = (list: readonly string[], item: string, on: boolean) =>
    on ? list.filter((x) => x !== item) : [...list.filter((x) => x !== item), item];
  return {
    mcpApprove: (m) =>
      act(async () =>
        (await approveByName(m.server, hub()))
          ? vscode.l10n.t('{0} is approved in this project; it starts in the chat session.', m.server)
          : vscode.l10n.t('No MCP server named {0} is defined any more.', m.server),
      ),
    mcpSetServer: (m) =>
      act(async () => {
        await changeMcpChoices((c) => ({ ...c, disabledServers: toggle(c.disabledServers, m.server, m.on) }), hub());
        return m.on
          ? vscode.l10n.t('{0} is on again in this project.', m.server)
          : vscode.l10n.t('{0} is off in this project: its tools leave the next request.', m.server);
      }),
    mcpSetTool: (m) =>
      act(async () => {
        const key = `${m.server}/${m.tool}`;
        await changeMcpChoices((c) => ({ ...c, disabledTools: toggle(c.disabledTools, key, m.on) }), hub());
        return m.on
          ? vscode.l10n.t('{0} of {1} is on again.', m.tool, m.server)
          : vscode.l10n.t('{0} of {1} is off: it leaves the next request.', m.tool, m.server);
      }),
    mcpRestart: (m) =>
      act(async () => {
        const running = hub();
        if (!running) return vscode.l10n.t('Start a chat to run MCP servers.');
        await running.restart(m.server);
        return vscode.l10n.t('{0} restarted.', m.server);
      }),
  };
}
