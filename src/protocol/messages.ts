// The host <-> webview protocol: the only module both sides import.
// Every message is a member of a discriminated union; `Handlers<U>` makes a handler map that fails the
// build when a new message type has no handler. Messages from a webview are untrusted input: the host
// checks each one against `CHAT_TO_HOST_SHAPES` / `INSPECTOR_TO_HOST_SHAPES` before dispatching it.
// The types live in shared.ts, chat.ts, inspector.ts, pinsView.ts, mcpView.ts and healthView.ts; message checking in shapes.ts.

export * from './shared';
export * from './chat';
export * from './inspector';
export * from './pinsView';
export * from './mcpView';
export * from './healthView';
export * from './shapes';
