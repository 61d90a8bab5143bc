// The webview's side of the protocol: a typed postMessage and a typed handler map for what the host sends.
import type { Handlers } from '../../src/protocol/messages';

interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare function acquireVsCodeApi<State>(): VsCodeApi<State>;

export interface HostLink<Out, State> {
  post(message: Out): void;
  getState(): State | undefined;
  setState(state: State): void;
}

export function connect<In extends { type: string }, Out, State = unknown>(
  handlers: Handlers<In>,
): HostLink<Out, State> {
  const api = acquireVsCodeApi<State>();
  window.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as In;
    if (!message || typeof message.type !== 'string') return;
    const handler = (handlers as unknown as Record<string, ((m: In) => void) | undefined>)[message.type];
    if (handler) handler(message);
  });
  return {
    post: (message) => api.postMessage(message),
    getState: () => api.getState(),
    setState: (state) => api.setState(state),
  };
}
