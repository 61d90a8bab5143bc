// Client of the UI bridge (test/host/uiBridge.mjs): lets a test in the extension host act on the real
// workbench in the browser: read text inside a webview iframe, click, run palette commands, screenshot.
import type { ViewId } from '../../src/protocol/messages';

async function call<T>(op: string, args: Record<string, unknown>): Promise<T> {
  const url = process.env.ENGRAM_UI_BRIDGE;
  if (!url) throw new Error('ENGRAM_UI_BRIDGE is not set: run the integration tests with `npm run test:integration`');
  const res = await fetch(`${url}/ui`, { method: 'POST', body: JSON.stringify({ op, ...args }) });
  const reply = (await res.json()) as { ok: boolean; value?: T; error?: string };
  if (!reply.ok) throw new Error(`ui.${op}(${JSON.stringify(args)}): ${reply.error}`);
  return reply.value as T;
}

export const ui = {
  text: (view: ViewId, selector: string, timeoutMs?: number) => call<string>('text', { view, selector, timeoutMs }),
  waitForText: (view: ViewId, selector: string, text: string, timeoutMs?: number) =>
    call<string>('waitForText', { view, selector, text, timeoutMs }),
  count: (view: ViewId, selector: string) => call<number>('count', { view, selector }),
  click: (view: ViewId, selector: string, timeoutMs?: number) => call<boolean>('click', { view, selector, timeoutMs }),
  fill: (view: ViewId, selector: string, value: string) => call<boolean>('fill', { view, selector, value }),
  press: (key: string) => call<boolean>('press', { key }),
  evaluate: <T>(view: ViewId, expression: string) => call<T>('evaluate', { view, expression }),
  palette: (command: string) => call<boolean>('palette', { command }),
  quickPick: (label: string) => call<boolean>('quickPick', { label }),
  acceptInputBox: (title: string) => call<boolean>('acceptInputBox', { title }),
  focusInputBox: (title: string) => call<boolean>('focusInputBox', { title }),
  workbenchText: (selector: string, timeoutMs?: number) => call<string>('workbenchText', { selector, timeoutMs }),
  clickWorkbench: (selector: string) => call<boolean>('clickWorkbench', { selector }),
  fillWorkbench: (selector: string, value: string) => call<boolean>('fillWorkbench', { selector, value }),
  screenshot: (name: string) => call<{ file: string; bytes: number }>('screenshot', { name }),
  wheel: (view: ViewId, selector: string, steps: number, dy: number, intervalMs?: number) =>
    call<boolean>('wheel', { view, selector, steps, dy, intervalMs }),
  memory: (view: ViewId) => call<{ jsHeapMb: number; rendererRssMb: number }>('memory', { view }),
};

/** Polls a condition (no fixed sleeps): resolves when it holds, fails with `what` after the timeout. */
export async function waitUntil(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
