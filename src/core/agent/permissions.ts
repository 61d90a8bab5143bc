// Who may run a tool call. The main agent asks a person (PermissionPrompt port) for anything that is not
// read-only and remembers "allow for this session" per tool name; forked agents bring their own rule.
import { readOutsideScope, type ReadScope } from '../tools/readScope';
import type { Tool } from '../tools/tool';
import type { PermissionAnswer, PermissionPrompt } from '../ports';

export type ToolDecision = { allow: true } | { allow: false; reason: string };

/** Decides one call. `summary` is the tool's one-line description of this input. */
export type ToolGate = (tool: Tool, input: Record<string, unknown>, call: GateCall) => Promise<ToolDecision>;

export interface GateCall {
  toolUseId: string;
  summary: string;
  signal: AbortSignal;
}

export interface PermissionObserver {
  asked?(call: GateCall, toolName: string): void;
  answered?(call: GateCall, toolName: string, answer: PermissionAnswer): void;
}

export const DENIED_BY_USER =
  'The user denied permission for this tool call. Do not retry it as is; ask the user or take another approach.';

/** Session-scoped permission state of one main conversation. */
export class SessionPermissions {
  private readonly allowedForSession = new Set<string>();
  private readScope: ReadScope | undefined;

  constructor(
    private readonly prompt: PermissionPrompt,
    private readonly observer: PermissionObserver = {},
  ) {}

  /** Tool names the user allowed for the rest of the session. */
  allowedTools(): string[] {
    return [...this.allowedForSession];
  }

  /**
   * From now on a read-only call that reads outside `scope` (a Read of /etc/hosts, a Grep of ~) asks
   * like a write. Without a scope every read-only call runs.
   */
  confineReads(scope: ReadScope | undefined): void {
    this.readScope = scope;
  }

  /** A new chat starts with no standing permissions. */
  reset(): void {
    this.allowedForSession.clear();
  }

  readonly gate: ToolGate = async (tool, input, call) => {
    const outside = tool.readOnly && this.readScope ? readOutsideScope(tool, input, this.readScope) : undefined;
    if ((tool.readOnly && outside === undefined) || this.allowedForSession.has(tool.name)) return { allow: true };
    this.observer.asked?.(call, tool.name);
    // The person is told why a read asks at all.
    const summary = outside === undefined ? call.summary : `${call.summary}\n(outside the workspace: ${outside})`;
    let answer: PermissionAnswer;
    try {
      answer = await this.prompt.ask({ toolName: tool.name, toolUseId: call.toolUseId, summary, input }, call.signal);
    } catch {
      // A prompt that fails (closed view, cancelled turn) must not run the tool.
      answer = 'deny';
    }
    if (call.signal.aborted) answer = 'deny';
    this.observer.answered?.(call, tool.name, answer);
    if (answer === 'allowSession') this.allowedForSession.add(tool.name);
    return answer === 'deny' ? { allow: false, reason: DENIED_BY_USER } : { allow: true };
  };
}

/** A prompt for places where nobody can answer (headless runs): everything asked is denied. */
export const denyAllPrompt: PermissionPrompt = { ask: async () => 'deny' };
