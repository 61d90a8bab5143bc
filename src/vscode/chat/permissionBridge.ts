// Permission prompts of the main agent, answered in the Chat view: each request becomes an inline item
// with allow once / for the session / always (saving the rule it names) / deny, and resolves when the
// person clicks (or denies when the turn is stopped). Edits and writes carry the diff of their change,
// read against the file as it is now; an MCP tool's card names its server and shows the arguments.
// No vscode import: the items model does the showing.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { PermissionAnswer, PermissionPrompt, PermissionRequest } from '../../core/host/sessions';
import type { PermissionChoice } from '../../protocol/messages';
import { formatInput } from './chatItems';
import type { ChatItemsModel } from './chatItemsModel';
import { permissionDiff } from './permissionDiff';

/** Files larger than this are not read for the prompt's diff (Write then shows only its new content). */
const MAX_READ_BYTES = 2 * 1024 * 1024;
const DIFF_TOOLS = new Set(['Edit', 'MultiEdit', 'Write']);

export class PermissionBridge implements PermissionPrompt {
  private readonly pending = new Map<string, (answer: PermissionAnswer) => void>();

  /** `cwd` resolves relative tool paths, as the tools themselves do. */
  constructor(
    private readonly items: ChatItemsModel,
    private readonly cwd: () => string,
  ) {}

  async ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    const id = `perm-${request.toolUseId}`;
    this.items.toolWaiting(request.toolUseId);
    const diff = DIFF_TOOLS.has(request.toolName)
      ? permissionDiff(request.toolName, request.input, await this.currentText(request.input.file_path))
      : undefined;
    if (signal.aborted) return 'deny';
    this.items.add({
      kind: 'permission',
      id,
      toolUseId: request.toolUseId,
      toolName: request.toolName,
      summary: request.summary,
      ...(diff ? { diff } : {}),
      ...(request.suggestedRule !== undefined ? { suggestedRule: request.suggestedRule } : {}),
      ...(request.mcp ? { mcp: { ...request.mcp, args: formatInput(request.input) } } : {}),
    });
    return new Promise<PermissionAnswer>((resolve) => {
      const done = (answer: PermissionAnswer) => {
        this.pending.delete(id);
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = () => done('deny');
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, done);
    });
  }

  answer(requestId: string, choice: PermissionChoice): void {
    const resolve = this.pending.get(requestId);
    const item = this.items.find(requestId);
    if (!resolve || !item || item.kind !== 'permission') return;
    this.items.update({ ...item, answered: choice });
    resolve(choice);
  }

  /**
   * The file's text now, or undefined when it is missing, too big or unreadable (the diff then works from
   * the input alone).
   */
  private async currentText(filePath: unknown): Promise<string | undefined> {
    if (typeof filePath !== 'string' || filePath === '') return undefined;
    const abs = path.resolve(this.cwd(), filePath);
    try {
      const stat = await fsp.stat(abs);
      if (!stat.isFile() || stat.size > MAX_READ_BYTES) return undefined;
      return await fsp.readFile(abs, 'utf8');
    } catch {
      return undefined;
    }
  }

  /** Stop: every open prompt is denied. */
  denyAll(): void {
    for (const resolve of [...this.pending.values()]) resolve('deny');
    this.pending.clear();
  }
}
