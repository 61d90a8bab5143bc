// Checking untrusted webview messages against the shape of their union, and typed handler maps.
export type Handlers<U extends { type: string }> = {
  [K in U['type']]: (message: Extract<U, { type: K }>) => void | Promise<void>;
};

/** Field kinds a message may carry; `?` marks an optional field. */
type FieldKind = 'string' | 'string?' | 'number' | 'boolean' | `enum:${string}`;
export type Shapes<U extends { type: string }> = { [K in U['type']]: Record<string, FieldKind> };

/** The longest string field a webview may send; a chat prompt can be long, but not unbounded. */
export const MAX_FIELD_LENGTH = 1_000_000;

/**
 * Checks an untrusted value against the shapes of a union. Returns the typed message, or an error text
 * that names what is wrong (for the log). Extra fields are rejected: a webview has no reason to send them.
 */
export function parseMessage<U extends { type: string }>(
  raw: unknown,
  shapes: Shapes<U>,
): { ok: true; message: U } | { ok: false; error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: 'message is not an object' };
  }
  const record = raw as Record<string, unknown>;
  const type = record.type;
  if (typeof type !== 'string' || !Object.hasOwn(shapes, type)) {
    return { ok: false, error: `unknown message type ${JSON.stringify(type)?.slice(0, 80)}` };
  }
  const shape = (shapes as Record<string, Record<string, FieldKind>>)[type];
  for (const key of Object.keys(record)) {
    if (key !== 'type' && !Object.hasOwn(shape, key)) {
      return { ok: false, error: `${type}: unexpected field ${JSON.stringify(key.slice(0, 80))}` };
    }
  }
  for (const [key, kind] of Object.entries(shape)) {
    const value = record[key];
    const problem = checkField(value, kind);
    if (problem) return { ok: false, error: `${type}.${key}: ${problem}` };
  }
  return { ok: true, message: raw as U };
}

function checkField(value: unknown, kind: FieldKind): string | undefined {
  if (kind === 'string?' && value === undefined) return undefined;
  if (kind === 'string' || kind === 'string?') {
    if (typeof value !== 'string') return `expected a string, got ${typeof value}`;
    if (value.length > MAX_FIELD_LENGTH) return `string longer than ${MAX_FIELD_LENGTH} characters`;
    return undefined;
  }
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value) ? undefined : 'expected a number';
  if (kind === 'boolean') return typeof value === 'boolean' ? undefined : 'expected a boolean';
  const allowed = kind.slice('enum:'.length).split('|');
  return typeof value === 'string' && allowed.includes(value) ? undefined : `expected one of ${allowed.join(', ')}`;
}
