// A session's MCP hub, wired in: the hub starts when the session opens (in a trusted workspace only: an
// untrusted one offers no tools at all), its events reach the host as `mcp` session events, a server that
// failed and a change of the offered tools (which changes the next request's prefix) are said in the chat
// as notices, and the gauge is told the tools' definitions changed.
import type { McpHub } from '../mcp/mcpHub';
import type { McpHubEvent } from '../mcp/types';
import type { Tool } from '../tools/tool';
import { say, type SessionEvent } from './sessionEvents';

/** The agent's provider of extra tools: the hub's tools as they are now. */
export function mcpToolsOf(hub: McpHub): () => Tool[] {
  return () => hub.tools();
}

export interface McpWiring {
  hub: McpHub;
  trusted: boolean;
  emit(event: SessionEvent): void;
  /** The offered tools changed: recount the prompt for the gauge. */
  toolsChanged(): void;
}

/** Starts the hub (trusted only) and forwards its events; returns the disposer (which closes the hub). */
export function wireMcp(w: McpWiring): () => void {
  const off = w.hub.onEvent((event) => {
    w.emit({ type: 'mcp', event });
    const notice = noticeOf(event);
    if (notice) w.emit(notice);
    if (event.type === 'toolsChanged') w.toolsChanged();
  });
  if (w.trusted) w.hub.start();
  return () => {
    off();
    void w.hub.close();
  };
}

function noticeOf(event: McpHubEvent): SessionEvent | undefined {
  switch (event.type) {
    case 'serverFailed': {
      const last = event.failure.stderr.at(-1);
      const words = last
        ? say('MCP server "{0}" failed: {1}. Last stderr line: {2}', event.server, event.failure.message, last)
        : say('MCP server "{0}" failed: {1}.', event.server, event.failure.message);
      return { type: 'notice', level: 'warning', ...words };
    }
    case 'toolsChanged': {
      const parts: string[] = [];
      if (event.added.length > 0) parts.push(`added ${someNames(event.added)}`);
      if (event.removed.length > 0) parts.push(`removed ${someNames(event.removed)}`);
      return {
        type: 'notice',
        level: 'info',
        ...say('MCP tools changed ({0}); the next request starts a new prompt cache.', parts.join('; ')),
      };
    }
    case 'status':
      return undefined;
  }
}

/** Up to five names, then how many more. */
function someNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}
