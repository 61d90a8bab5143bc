import type * as vscode from 'vscode';
import type { Logger } from '../core/host/sessions';
import { parseMessage, type Handlers, type Shapes } from '../protocol/messages';

/**
 * One typed, validated link to a webview. Incoming messages are checked against the protocol's shapes
 * before any handler sees them; a bad one is logged and dropped (it never throws into the host).
 * Outgoing messages wait until the webview has said `ready`, so nothing sent during load is lost.
 */
export class WebviewChannel<In extends { type: string }, Out> implements vscode.Disposable {
  private ready = false;
  private readonly outbox: Out[] = [];
  private readonly subscription: vscode.Disposable;
  /** Messages rejected so far; tests read it to prove bad input is refused. */
  rejected = 0;

  constructor(
    private readonly webview: vscode.Webview,
    name: string,
    shapes: Shapes<In>,
    handlers: Handlers<In>,
    logger: Logger,
  ) {
    this.subscription = webview.onDidReceiveMessage(async (raw: unknown) => {
      const parsed = parseMessage(raw, shapes);
      if (!parsed.ok) {
        this.rejected++;
        logger.warn(`${name} webview: rejected a message (${parsed.error})`);
        return;
      }
      const message = parsed.message;
      if (message.type === 'ready') this.flush();
      const handler = handlers[message.type as In['type']] as (m: In) => void | Promise<void>;
      try {
        await handler(message);
      } catch (error) {
        logger.error(`${name} webview: handling '${message.type}' failed`, error);
      }
    });
  }

  /** The webview (re)loaded its page: hold messages until it says `ready` again. */
  reset(): void {
    this.ready = false;
  }

  post(message: Out): void {
    if (!this.ready) {
      this.outbox.push(message);
      return;
    }
    void this.webview.postMessage(message);
  }

  private flush(): void {
    this.ready = true;
    for (const message of this.outbox.splice(0)) void this.webview.postMessage(message);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
