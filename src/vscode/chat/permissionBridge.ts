// Permission prompts of the main agent, answered in the Chat view: each request becomes an inline item
// with allow once / for the session / deny, and resolves when the person clicks (or denies when the
// turn is stopped). No vscode import: the items model does the showing.
import type { PermissionAnswer, PermissionPrompt, PermissionRequest } from '../../core/ports';
import type { PermissionChoice } from '../../protocol/messages';
import type { ChatItemsModel } from './chatItemsModel';

export class PermissionBridge implements PermissionPrompt {
  private readonly pending = new Map<string, (answer: PermissionAnswer) => void>();

  constructor(private readonly items: ChatItemsModel) {}

  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    const id = `perm-${request.toolUseId}`;
    this.items.toolWaiting(request.toolUseId);
    this.items.add({ kind: 'permission', id, toolUseId: request.toolUseId, toolName: request.toolName, summary: request.summary });
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

  /** Stop: every open prompt is denied. */
  denyAll(): void {
    for (const resolve of [...this.pending.values()]) resolve('deny');
    this.pending.clear();
  }
}
