// How the MCP servers' events show in the chat: tools that joined or left (the next request's prefix
// changes, so the prompt cache is written once more: worth saying, since it costs), and a server that
// failed, with why, its exit code and the last lines it wrote to stderr (secrets masked), restarted the
// next time one of its tools is used. Status changes only refresh the inspector.
import * as vscode from 'vscode';
import type { McpHubEvent } from '../../core/host/mcp';
import { clause } from '../../protocol/sentence';
import { loadEngine } from '../loadEngine';
import type { ChatWindow } from './chatWindow';

/**
 * The session's own notices of the same events (core/session/sessionMcp.ts, worded for every host): the
 * chat leaves them out, since it says these with the server's name, the count and the exit code.
 */
export const SESSION_MCP_NOTICES: ReadonlySet<string> = new Set([
  'MCP server "{0}" failed: {1}. Last stderr line: {2}',
  'MCP server "{0}" failed: {1}.',
  'MCP tools changed ({0}); the next request starts a new prompt cache.',
]);

/** stderr lines a failure notice quotes (the inspector shows more). */
const STDERR_LINES = 3;

export function showMcpEvent(event: McpHubEvent, view: Pick<ChatWindow, 'items' | 'inspectorChanged'>): void {
  switch (event.type) {
    case 'toolsChanged':
      for (const [server, count] of byServer(event.added))
        view.items.notice(
          'info',
          count === 1
            ? vscode.l10n.t(
                "1 tool from {0} joined; the next request's prefix changes, so its cache is written once more.",
                server,
              )
            : vscode.l10n.t(
                "{0} tools from {1} joined; the next request's prefix changes, so its cache is written once more.",
                count,
                server,
              ),
          'manageMcpServers',
        );
      for (const [server, count] of byServer(event.removed))
        view.items.notice(
          'info',
          count === 1
            ? vscode.l10n.t(
                "1 tool from {0} left; the next request's prefix changes, so its cache is written once more.",
                server,
              )
            : vscode.l10n.t(
                "{0} tools from {1} left; the next request's prefix changes, so its cache is written once more.",
                count,
                server,
              ),
          'manageMcpServers',
        );
      break;
    case 'serverFailed': {
      const { failure } = event;
      const said =
        // The exit code, unless the reason already names it ("exited with code 3 ...").
        failure.exitCode !== undefined &&
        failure.exitCode !== null &&
        !failure.message.includes(`code ${failure.exitCode}`)
          ? vscode.l10n.t(
              'MCP server {0} failed: {1} (exit code {2}). It restarts the next time one of its tools is used.',
              event.server,
              failure.message,
              failure.exitCode,
            )
          : vscode.l10n.t(
              'MCP server {0} failed: {1}. It restarts the next time one of its tools is used.',
              event.server,
              clause(failure.message),
            );
      const tail = failure.stderr.slice(-STDERR_LINES).join('\n');
      // What a server writes to stderr may hold a token: masked before it is shown.
      void (tail ? loadEngine().redactAttachedText(tail) : Promise.resolve(''))
        .catch(() => '')
        .then((lines) =>
          view.items.notice(
            'warning',
            lines ? `${said}\n${vscode.l10n.t('Last lines on stderr: {0}', lines)}` : said,
            'manageMcpServers',
          ),
        );
      break;
    }
    case 'status':
      break;
    default:
      break;
  }
  view.inspectorChanged();
}

/** How many of `names` (`mcp__<server>__<tool>`) belong to each server, in first-seen order. */
function byServer(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) {
    const server = /^mcp__(.+?)__/.exec(name)?.[1] ?? name;
    counts.set(server, (counts.get(server) ?? 0) + 1);
  }
  return counts;
}
