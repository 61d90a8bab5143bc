// Extension points of the loop: the memory features (session notes, auto memory) attach here. A hook
// that fails is logged and the turn goes on; a hook that has long work to do should start it and
// return, because the loop awaits each hook.
import type { Logger } from '../ports';

export type Hook<C> = (ctx: C) => void | Promise<void>;

export class HookList<C> {
  private readonly hooks: Array<{ name: string; fn: Hook<C> }> = [];

  /** Adds a hook; returns a function that removes it. */
  add(name: string, fn: Hook<C>): () => void {
    const entry = { name, fn };
    this.hooks.push(entry);
    return () => {
      const i = this.hooks.indexOf(entry);
      if (i >= 0) this.hooks.splice(i, 1);
    };
  }

  get size(): number {
    return this.hooks.length;
  }

  /** Runs the hooks in the order they were added. */
  async run(ctx: C, logger: Logger): Promise<void> {
    for (const { name, fn } of [...this.hooks]) {
      try {
        await fn(ctx);
      } catch (e) {
        logger.error(`Hook "${name}" failed`, e);
      }
    }
  }
}
