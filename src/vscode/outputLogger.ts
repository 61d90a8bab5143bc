import * as vscode from 'vscode';
import type { Logger } from '../core/host/sessions';

/** The engine's Logger on a VS Code log output channel ("Engram" in the Output panel). */
export function createOutputLogger(): Logger & vscode.Disposable & { show(): void } {
  const channel = vscode.window.createOutputChannel('Engram', { log: true });
  return {
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message, error) => channel.error(error === undefined ? message : `${message}: ${describe(error)}`),
    show: () => channel.show(true),
    dispose: () => channel.dispose(),
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  return String(error);
}
