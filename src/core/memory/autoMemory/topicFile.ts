// One topic file of auto memory: front matter (`name`, `description`, `type`) and a body. Files in the
// wild are written by models, people and older tools, so reading is forgiving: a missing front matter,
// extra keys, `type` nested under `metadata:`, CRLF line ends and a byte order mark are all accepted;
// broken YAML is reported and the fields are recovered line by line so nothing is lost; a file with
// NUL bytes is not text and is skipped by the caller. Edits that Engram makes to an existing file
// (provenance, type) are textual, so every byte the author wrote stays as it was.
import matter from 'gray-matter';
import { looksBinary } from '../../fs/fileText';

export const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export function isMemoryType(v: unknown): v is MemoryType {
  return typeof v === 'string' && (MEMORY_TYPES as readonly string[]).includes(v);
}

export interface TopicFile {
  name?: string;
  description?: string;
  /** Null when absent or not one of the four types (a warning says which). */
  type: MemoryType | null;
  /** Every front matter key as parsed (empty when there is none or it is broken). */
  data: Record<string, unknown>;
  body: string;
  hasFrontMatter: boolean;
  /** Problems worth telling the user; the file is still usable. */
  warnings: string[];
}

export type TopicRead = { binary: true } | ({ binary: false } & TopicFile);

// gray-matter evaluates `---js` front matter with eval(); memory can come from other people (team
// memory) or from a model, so only data formats are parsed.
const REFUSE = (): object => {
  throw new Error('only YAML front matter is read');
};
const MATTER_OPTIONS = {
  engines: { javascript: REFUSE, js: REFUSE, coffee: REFUSE, coffeescript: REFUSE, cson: REFUSE },
};

export function parseTopicFile(bytes: Buffer | string): TopicRead {
  const buf = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  if (looksBinary(buf)) return { binary: true };
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const block = frontMatterBlock(text);
  if (!block) return { binary: false, type: null, data: {}, body: text, hasFrontMatter: false, warnings: [] };
  if (!block.closed) {
    return {
      binary: false,
      type: null,
      data: {},
      body: text,
      hasFrontMatter: false,
      warnings: ['front matter is not closed by a "---" line; read as plain text'],
    };
  }
  const warnings: string[] = [];
  let data: Record<string, unknown>;
  try {
    // An options object also turns off gray-matter's content cache, which would share parsed objects.
    const parsed = matter(text, MATTER_OPTIONS).data as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      warnings.push('front matter is not a set of "key: value" lines');
      data = {};
    } else {
      data = parsed as Record<string, unknown>;
    }
  } catch (e) {
    warnings.push(`front matter is not valid YAML (${firstLine(e)}); fields read line by line`);
    data = looseFields(block.yaml);
  }
  const fields = pickFields(data, warnings);
  return { binary: false, ...fields, data, body: block.body, hasFrontMatter: true, warnings };
}

function pickFields(
  data: Record<string, unknown>,
  warnings: string[],
): Pick<TopicFile, 'name' | 'description' | 'type'> {
  const name = scalar(data.name);
  const description = scalar(data.description);
  const metadata =
    data.metadata && typeof data.metadata === 'object' ? (data.metadata as Record<string, unknown>) : undefined;
  const rawType = data.type ?? metadata?.type;
  const typeText = scalar(rawType)?.trim().toLowerCase();
  let type: MemoryType | null = null;
  if (isMemoryType(typeText)) type = typeText;
  else if (typeText) warnings.push(`unknown memory type "${typeText}" (expected ${MEMORY_TYPES.join(', ')})`);
  return { ...(name !== undefined ? { name } : {}), ...(description !== undefined ? { description } : {}), type };
}

function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  // YAML turns an unquoted 2026-01-02 into a Date.
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString().slice(0, 10);
  return undefined;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0].trim();
}

export interface FrontMatterBlock {
  /** The YAML text between the delimiters. */
  yaml: string;
  /** Offset of the first character after the opening `---` line ending. */
  yamlStart: number;
  /** Offset of the closing `---` line (where new keys can be inserted). */
  closeStart: number;
  body: string;
  closed: boolean;
  eol: '\n' | '\r\n';
}

/** Locates a `---` ... `---` block at the very start of the text (after a byte order mark). */
export function frontMatterBlock(text: string): FrontMatterBlock | undefined {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // `---js` and friends are front matter too (gray-matter's languages); they are reported, not run.
  const open = /^---[A-Za-z]*[ \t]*(\r?\n)/.exec(text.slice(bom));
  if (!open) return undefined;
  const eol = open[1] === '\r\n' ? '\r\n' : '\n';
  const yamlStart = bom + open[0].length;
  const close = /^---[ \t]*(\r?\n|$)/m;
  const rest = text.slice(yamlStart);
  const m = close.exec(rest);
  if (!m) return { yaml: rest, yamlStart, closeStart: text.length, body: '', closed: false, eol };
  const closeStart = yamlStart + m.index;
  return {
    yaml: rest.slice(0, m.index),
    yamlStart,
    closeStart,
    body: text.slice(closeStart + m[0].length),
    closed: true,
    eol,
  };
}

/** `key: value` lines of a block YAML could not parse; values lose surrounding quotes. */
function looseFields(yaml: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let inMetadata = false;
  for (const line of yaml.split(/\r?\n/)) {
    const m = /^(\s*)([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, indent, key, raw] = m;
    if (indent === '') inMetadata = key === 'metadata' && raw.trim() === '';
    const value = raw.trim().replace(/^(['"])(.*)\1$/, '$2');
    if (indent === '' && !(key in out)) out[key] = value;
    else if (inMetadata && key === 'type' && out.type === undefined) out.type = value;
  }
  return out;
}

/** A new topic file's text. Values are quoted when YAML would misread them. */
export function formatTopicFile(fields: Record<string, string>, body: string): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${yamlScalar(v)}`);
  const text = body.replace(/^\s*\n/, '');
  return `---\n${lines.join('\n')}\n---\n\n${text}${text.endsWith('\n') ? '' : '\n'}`;
}

/** One-line YAML scalar: plain when safe, else double-quoted with escapes. */
export function yamlScalar(value: string): string {
  const v = value.replace(/[\r\n]+/g, ' ');
  const plainSafe =
    v !== '' &&
    !/^[\s\-?:,[\]{}#&*!|>'"%@`]/.test(v) &&
    !/(:\s|\s#)/.test(v) &&
    !/\s$/.test(v) &&
    !/^(true|false|yes|no|on|off|null|~|[-+]?[\d._]+([eE][-+]?\d+)?|\d{4}-\d\d-\d\d.*)$/i.test(v);
  return plainSafe ? v : JSON.stringify(v);
}

/**
 * Sets top-level front matter keys by editing lines: a key already present gets its value replaced
 * (`onlyIfMissing` leaves it), a new key goes before the closing `---`. A file without front matter
 * gets a block. Everything else keeps its bytes.
 */
export function setFrontMatterKeys(
  text: string,
  values: Record<string, string>,
  opts: { onlyIfMissing?: boolean; nestedType?: boolean } = {},
): string {
  const block = frontMatterBlock(text);
  if (!block || !block.closed) {
    const eol = /\r\n/.test(text) ? '\r\n' : '\n';
    const lines = Object.entries(values).map(([k, v]) => `${k}: ${yamlScalar(v)}`);
    return `---${eol}${lines.join(eol)}${eol}---${eol}${text}`;
  }
  let yaml = block.yaml;
  const eol = block.eol;
  for (const [key, value] of Object.entries(values)) {
    const re = new RegExp(`^${key}[ \\t]*:.*$`, 'm');
    const nestedRe = new RegExp(`^([ \\t]+)${key}[ \\t]*:.*$`, 'm');
    if (re.test(yaml)) {
      if (!opts.onlyIfMissing) yaml = yaml.replace(re, () => `${key}: ${yamlScalar(value)}`);
    } else if (opts.nestedType && /^metadata[ \t]*:[ \t]*\r?$/m.test(yaml) && nestedRe.test(yaml)) {
      if (!opts.onlyIfMissing)
        yaml = yaml.replace(nestedRe, (_m, indent: string) => `${indent}${key}: ${yamlScalar(value)}`);
    } else {
      const sep = yaml === '' || yaml.endsWith('\n') ? '' : eol;
      yaml = `${yaml}${sep}${key}: ${yamlScalar(value)}${eol}`;
    }
  }
  return text.slice(0, block.yamlStart) + yaml + text.slice(block.closeStart);
}
