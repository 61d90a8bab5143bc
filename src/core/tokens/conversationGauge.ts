// Keeps a ContextAccountant in step with a live conversation without re-tokenizing history: new messages
// are added one by one; a rewritten history (a prompt merged into the last user message, a compaction,
// a resumed session) is detected by identity and starts the count over.
import type { ApiMessage, Usage } from '../conversation/types';
import { ContextAccountant, type ContextBreakdown, type FixedParts } from './accounting';

export class ConversationGauge {
  private readonly accountant = new ContextAccountant();
  private seen: ApiMessage[] = [];

  setFixed(parts: Partial<FixedParts>): void {
    this.accountant.setFixed(parts);
  }

  /** Brings the count up to date with `messages` (the agent's history, which only ever grows or is replaced). */
  sync(messages: readonly ApiMessage[]): void {
    const n = this.seen.length;
    const prefixIntact = messages.length >= n && (n === 0 || messages[n - 1] === this.seen[n - 1]);
    if (!prefixIntact) {
      this.accountant.reset(messages);
      this.seen = messages.slice();
      return;
    }
    for (let i = n; i < messages.length; i++) this.accountant.onMessageAdded(messages[i]);
    this.seen = messages.slice();
  }

  /** A response's usage, once the response is part of `messages`. */
  onResponse(usage: Usage, messages: readonly ApiMessage[]): void {
    this.sync(messages);
    this.accountant.onResponse(usage, messages.length);
  }

  used(): number {
    return this.accountant.used();
  }

  breakdown(): ContextBreakdown {
    return this.accountant.breakdown();
  }
}
