// What the webviews' content security policy blocked, read from the browser console log the runner
// writes (test/host/runHost.mjs): Chromium prints one line per violation there, also for what no script
// can see (a blocked style attribute, the toolkit parsing a template). A test marks where the log ends,
// acts, then reads what was printed since, after a canary shows that the log has caught up.
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ViewId } from '../../src/protocol/messages';
import { ui, waitUntil } from './ui';

const VIOLATION = /^\[\w+\] (.*?) violates the following Content Security Policy directive/;

function logFile(): string {
  const root = vscode.extensions.getExtension('engram-dev.engram')!.extensionPath;
  return path.join(root, 'test-artifacts', 'integration', 'browser-console.log');
}

function readLog(): string {
  return fs.existsSync(logFile()) ? fs.readFileSync(logFile(), 'utf8') : '';
}

/** Where the browser log ends now: what was printed before it belongs to earlier tests. */
export function cspMark(): number {
  return readLog().length;
}

/**
 * The violation lines printed since `mark`. A canary is logged from each view first and has to arrive,
 * so nothing those views printed before is still on its way.
 */
export async function cspViolationsSince(mark: number, views: ViewId[] = ['inspector']): Promise<string[]> {
  for (const view of views) {
    const canary = `engram-csp-canary-${view}-${Date.now()}`;
    await ui.evaluate(view, `console.log(${JSON.stringify(canary)})`);
    await waitUntil(`the browser log to catch up with the ${view} view`, () => readLog().includes(canary));
  }
  return readLog()
    .slice(mark)
    .split('\n')
    .filter((line) => VIOLATION.test(line));
}

/** What a violation line says was blocked, e.g. "Applying inline style" or "Executing inline script". */
export function blockedAction(line: string): string {
  return VIOLATION.exec(line)?.[1] ?? line;
}

/**
 * Makes one of each toolkit element the view has registered, so each template is parsed once: a
 * template with a style binding trips the CSP the first time, whichever pane would have shown it.
 */
export async function createEveryToolkitElement(view: ViewId): Promise<string[]> {
  // A custom element renders its template when connected, synchronously: no wait is needed.
  return ui.evaluate<string[]>(
    view,
    `(() => {
    const tags = ['badge', 'button', 'checkbox', 'data-grid', 'data-grid-row', 'data-grid-cell', 'divider', 'dropdown', 'link',
      'option', 'panels', 'panel-tab', 'panel-view', 'progress-ring', 'radio', 'radio-group', 'tag', 'text-area', 'text-field']
      .map((t) => 'vscode-' + t).filter((t) => customElements.get(t));
    for (const t of tags) document.body.appendChild(document.createElement(t)).remove();
    return tags;
  })()`,
  );
}
