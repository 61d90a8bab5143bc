// What a setting key is: its kind (number, boolean, text), default and range, the short constructors
// SETTING_KEYS is written with, and the check of one value a host read against its key. Rules that
// relate several settings to each other live in settingsConsistency.ts.

interface NumberKey {
  kind: 'number';
  default: number;
  minimum: number;
  maximum?: number;
  integer?: boolean;
}
interface BooleanKey {
  kind: 'boolean';
  default: boolean;
}
/** `format: 'http-url'`: empty, or an absolute http(s) URL (a server Engram sends data to). */
interface StringKey {
  kind: 'string';
  default: string;
  format?: 'http-url';
  oneOf?: readonly string[];
}
/** A list of texts (permission rules); the default is the empty list. */
interface StringListKey {
  kind: 'array';
  default: readonly string[];
}
/** A JSON object read as is (a map of MCP servers); its own reader checks the inside. */
interface ObjectKey {
  kind: 'object';
  default: Readonly<Record<string, unknown>>;
}
export type SettingKey = NumberKey | BooleanKey | StringKey | StringListKey | ObjectKey;

export const int = (def: number, minimum: number, maximum?: number): NumberKey => ({
  kind: 'number',
  default: def,
  minimum,
  integer: true,
  ...(maximum !== undefined ? { maximum } : {}),
});
export const percent = (def: number): NumberKey => ({ kind: 'number', default: def, minimum: 1, maximum: 100 });
export const bool = (def: boolean): BooleanKey => ({ kind: 'boolean', default: def });
export const str = (def: string): StringKey => ({ kind: 'string', default: def });
export const httpUrl = (def: string): StringKey => ({ kind: 'string', default: def, format: 'http-url' });
export const strings = (): StringListKey => ({ kind: 'array', default: [] });
export const object = (): ObjectKey => ({ kind: 'object', default: {} });
export const oneOf = (def: string, values: readonly string[]): StringKey => ({
  kind: 'string',
  default: def,
  oneOf: values,
});

export type ValueOf<K extends SettingKey> = K extends NumberKey
  ? number
  : K extends BooleanKey
    ? boolean
    : K extends StringListKey
      ? readonly string[]
      : K extends ObjectKey
        ? Readonly<Record<string, unknown>>
        : string;

/** Why `value` cannot be the value of `key`, or undefined when it can. */
export function whyInvalid(key: SettingKey, value: unknown): string | undefined {
  if (key.kind === 'boolean')
    return typeof value === 'boolean' ? undefined : `expected true or false, got ${JSON.stringify(value)}`;
  if (key.kind === 'array')
    return Array.isArray(value) && value.every((v) => typeof v === 'string')
      ? undefined
      : `expected a list of texts, got ${JSON.stringify(value)}`;
  if (key.kind === 'object')
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? undefined
      : `expected an object, got ${JSON.stringify(value)}`;
  if (key.kind === 'string') {
    if (typeof value !== 'string') return `expected text, got ${JSON.stringify(value)}`;
    if (key.oneOf && !key.oneOf.includes(value.trim()))
      return `expected one of ${key.oneOf.join(', ')}, got ${JSON.stringify(value)}`;
    return key.format === 'http-url' ? httpUrlProblem(value.trim()) : undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return `expected a number, got ${JSON.stringify(value)}`;
  if (key.integer && !Number.isInteger(value)) return `expected a whole number, got ${value}`;
  if (value < key.minimum) return `${value} is below the minimum ${key.minimum}`;
  if (key.maximum !== undefined && value > key.maximum) return `${value} is above the maximum ${key.maximum}`;
  return undefined;
}

/** Why `value` is not empty or an http(s) URL a client can send to, or undefined. */
function httpUrlProblem(value: string): string | undefined {
  if (value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not a URL (expected e.g. https://team.example.com)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${JSON.stringify(value)} is not an http(s) URL`;
  // A token in the URL would end up in logs and reports; it belongs in the token setting.
  if (url.username || url.password) return `${JSON.stringify(value)} must not carry a user name or password`;
  if (url.search || url.hash) return `${JSON.stringify(value)} must not have a query or fragment`;
  return undefined;
}
