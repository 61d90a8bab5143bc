// Who may run a tool call. The main agent follows the permission rules first (a deny rule refuses, an
// allow rule runs the call; ruleBook.ts), then asks a person (PermissionPrompt port) for anything that is
// not read-only, remembering "allow for this session" per tool name and saving "Always allow" as a rule;
// forked agents bring their own rule.
import { readOutsideScope, type ReadScope } from '../tools/readScope';
import type { Tool } from '../tools/tool';
import type { PermissionAnswer, PermissionPrompt } from '../ports';
import { describeSource, type SourcedRule } from './permissionRules';
import type { RuleBook } from './ruleBook';

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

/** What "Always allow" did: the rule saved and the file, or why it could not be saved (the call ran anyway). */
export type RuleSaved = { rule: string; file: string } | { rule: string; error: string };

/** The reason the model reads when a deny rule refuses a call: the rule and where it came from. */
export function deniedByRule(rule: SourcedRule): string {
  return (
    `Denied by the permission rule ${rule.text} (${describeSource(rule)}). ` +
    'Do not try to get around it; take another approach or ask the user.'
  );
}

export const DENIED_BY_USER =
  'The user denied permission for this tool call. Do not retry it as is; ask the user or take another approach.';

/** Session-scoped permission state of one main conversation. */
export class SessionPermissions {
  private readonly allowedForSession = new Set<string>();
  private readScope: ReadScope | undefined;
  private rules: RuleBook | undefined;
  private readonly savedListeners = new Set<(saved: RuleSaved) => void>();

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

  /** From now on the rules of `book` come first: deny refuses, allow runs without asking. */
  useRules(book: RuleBook | undefined): void {
    this.rules = book;
  }

  /** Tells `listener` of each "Always allow" rule saved (or not saved); returns a function that stops it. */
  onRuleSaved(listener: (saved: RuleSaved) => void): () => void {
    this.savedListeners.add(listener);
    return () => this.savedListeners.delete(listener);
  }

  /** A new chat starts with no standing permissions (saved rules stay: they are in their files). */
  reset(): void {
    this.allowedForSession.clear();
  }

  readonly gate: ToolGate = async (tool, input, call) => {
    // Rules that cannot be judged (a bug, a file system error) leave the call to the person.
    const verdict = this.rules ? await this.rules.decide(tool, input).catch(() => undefined) : undefined;
    if (verdict?.behavior === 'deny' && verdict.rule) return { allow: false, reason: deniedByRule(verdict.rule) };
    if (verdict?.behavior === 'allow') return { allow: true };
    const outside = tool.readOnly && this.readScope ? readOutsideScope(tool, input, this.readScope) : undefined;
    if ((tool.readOnly && outside === undefined) || this.allowedForSession.has(tool.name)) return { allow: true };
    this.observer.asked?.(call, tool.name);
    // The person is told why a read asks at all.
    const summary = outside === undefined ? call.summary : `${call.summary}\n(outside the workspace: ${outside})`;
    const suggestedRule = this.rules?.suggest(tool, input);
    let answer: PermissionAnswer;
    try {
      answer = await this.prompt.ask(
        {
          toolName: tool.name,
          toolUseId: call.toolUseId,
          summary,
          input,
          ...(tool.mcp ? { mcp: { server: tool.mcp.server, tool: tool.mcp.tool } } : {}),
          ...(suggestedRule !== undefined ? { suggestedRule } : {}),
        },
        call.signal,
      );
    } catch {
      // A prompt that fails (closed view, cancelled turn) must not run the tool.
      answer = 'deny';
    }
    if (call.signal.aborted) answer = 'deny';
    this.observer.answered?.(call, tool.name, answer);
    if (answer === 'allowSession') this.allowedForSession.add(tool.name);
    if (answer === 'allowAlways') await this.saveRule(suggestedRule, tool.name);
    return answer === 'deny' ? { allow: false, reason: DENIED_BY_USER } : { allow: true };
  };

  /** Saves the rule of an "Always allow" (a host without rules gets the session allow instead). */
  private async saveRule(rule: string | undefined, toolName: string): Promise<void> {
    if (!this.rules || rule === undefined) {
      this.allowedForSession.add(toolName);
      return;
    }
    let saved: RuleSaved;
    try {
      saved = { rule, file: await this.rules.allowAlways(rule) };
    } catch (e) {
      saved = { rule, error: e instanceof Error ? e.message : String(e) };
    }
    for (const listener of [...this.savedListeners]) listener(saved);
  }
}

/** A prompt for places where nobody can answer (headless runs): everything asked is denied. */
export const denyAllPrompt: PermissionPrompt = { ask: async () => 'deny' };
