// Finds secrets in text and redacts them: every tool result before the model, the listeners and the
// transcript see it (issue #13), and later the team-memory push, which must never upload one (DESIGN 4).
// The rules are secretlint's recommended preset (AWS, GCP, GitHub, Slack, npm, OpenAI, private keys,
// basic auth and database URLs, ...), plus one of ours for every Anthropic key shape (the preset knows
// only the 108-character `sk-ant-api0N-...AA` form), plus the exact values of the credentials this
// process runs with, whatever their shape (a gateway's key looks like nothing in particular).
// Cost: ~15 ms per MB of text (test/unit/security/secretScan.test.ts measures it); tool results are
// capped far below that, so a result costs a millisecond or two.
import { lintSource } from '@secretlint/core';
// A static import: secretlint's own config loader finds rules by package name at run time, which a
// bundle cannot do.
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';

type LintOptions = Parameters<typeof lintSource>[0]['options'];
type ScannerRule = (typeof recommendedRules)[number];

/** One secret in a text: which rule found it and where ([start, end) in UTF-16 units). */
export interface SecretFinding {
  /** Short name of what was found: `anthropic`, `aws`, `github`, `api key` (a known value), ... */
  kind: string;
  ruleId: string;
  start: number;
  end: number;
}

const OWN_ANTHROPIC_RULE = 'engram/anthropic-key';
const KNOWN_VALUE_RULE = 'engram/known-credential';

// Every Anthropic credential starts with `sk-ant-` (api03, admin01, oat01, ...): long enough to be one,
// bounded so the match stops at the key.
const ANTHROPIC_KEY = /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9]+-[A-Za-z0-9_-]{20,}/g;

const ANTHROPIC_MESSAGES = { ANTHROPIC_KEY: { en: () => 'found an Anthropic API key' } };
const anthropicRule = {
  messages: ANTHROPIC_MESSAGES,
  meta: {
    id: OWN_ANTHROPIC_RULE,
    recommended: true,
    type: 'scanner',
    supportedContentTypes: ['text'],
    docs: { url: 'https://docs.anthropic.com/en/api/overview' },
  },
  create(context: {
    report(d: { message: unknown; range: readonly [number, number] }): void;
    createTranslator(m: unknown): (id: string) => unknown;
  }) {
    const t = context.createTranslator(ANTHROPIC_MESSAGES);
    return {
      file(source: { content: string }) {
        for (const m of source.content.matchAll(ANTHROPIC_KEY)) {
          context.report({ message: t('ANTHROPIC_KEY'), range: [m.index, m.index + m[0].length] });
        }
      },
    };
  },
} as unknown as ScannerRule;

// The preset's rules one by one, without its comment filter: "secretlint-disable" in the scanned text
// would switch the scan off, and the text is what we do not trust. (Listing the filter as disabled in
// the preset's config is not honoured by @secretlint/core 12.)
const FILTER_COMMENTS = '@secretlint/secretlint-rule-filter-comments';
const CONFIG: LintOptions['config'] = {
  rules: [
    ...recommendedRules.filter((r) => r.meta.id !== FILTER_COMMENTS).map((r) => ({ id: r.meta.id, rule: r })),
    { id: OWN_ANTHROPIC_RULE, rule: anthropicRule },
  ],
};

/** Environment variables whose values are this process's credentials (Bash children get none of them). */
export const CREDENTIAL_ENV_VARS: readonly string[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ENGRAM_API_KEY'];
/** Shorter values are not searched for: `test`, `k` would redact ordinary words. */
const MIN_KNOWN_LENGTH = 8;
const known = new Set<string>();

/**
 * A credential to redact wherever it appears, e.g. the API key a host got from its secret storage
 * (values in CREDENTIAL_ENV_VARS are found without this).
 */
export function addKnownSecret(value: string | undefined): void {
  if (value && value.length >= MIN_KNOWN_LENGTH) known.add(value);
}

function knownValues(env: NodeJS.ProcessEnv): string[] {
  const out = new Set(known);
  for (const name of CREDENTIAL_ENV_VARS) {
    const v = env[name]?.trim();
    if (v && v.length >= MIN_KNOWN_LENGTH) out.add(v);
  }
  return [...out];
}

export interface ScanOptions {
  /** Where the credential variables are read; default process.env (read at each scan: it may change). */
  env?: NodeJS.ProcessEnv;
}

/** Every secret in `text`, sorted by position, overlaps merged. */
export async function scanSecrets(text: string, opts: ScanOptions = {}): Promise<SecretFinding[]> {
  if (text.length < MIN_KNOWN_LENGTH) return [];
  const found: SecretFinding[] = [];
  for (const value of knownValues(opts.env ?? process.env)) {
    for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + value.length)) {
      found.push({ kind: 'api key', ruleId: KNOWN_VALUE_RULE, start: i, end: i + value.length });
    }
  }
  const result = await lintSource({
    source: { content: text, filePath: 'tool-result.txt', ext: '.txt', contentType: 'text' },
    options: { config: CONFIG, noPhysicFilePath: true, maskSecrets: true },
  });
  // The messages quote the secret (unless masked); only the rule and the range are kept. A range is
  // taken to the end of the token it ends in: some rules report a range shorter than the secret (the
  // AWS secret-key rule measures from the key's name but with the value's length), and half a secret
  // left in the text is still a leak.
  for (const m of result.messages) {
    found.push({ kind: kindOf(m.ruleId), ruleId: m.ruleId, start: m.range[0], end: tokenEnd(text, m.range[1]) });
  }
  return merge(found);
}

const TOKEN_CHAR = /[A-Za-z0-9+/=_\-.~%]/;

function tokenEnd(text: string, end: number): number {
  let i = end;
  while (i < text.length && i - end < 512 && TOKEN_CHAR.test(text[i])) i++;
  return i;
}

/** `text` with every secret replaced by `[REDACTED <kind>]`. */
export async function redactSecrets(
  text: string,
  opts: ScanOptions = {},
): Promise<{ text: string; findings: SecretFinding[] }> {
  const findings = await scanSecrets(text, opts);
  if (findings.length === 0) return { text, findings };
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += `${text.slice(at, f.start)}[REDACTED ${f.kind}]`;
    at = f.end;
  }
  return { text: out + text.slice(at), findings };
}

function kindOf(ruleId: string): string {
  if (ruleId === OWN_ANTHROPIC_RULE) return 'anthropic';
  return ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
}

/** Sorted, and overlapping findings joined (the first one's kind wins): each secret is replaced once. */
function merge(found: SecretFinding[]): SecretFinding[] {
  const sorted = found.filter((f) => f.end > f.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretFinding[] = [];
  for (const f of sorted) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else out.push({ ...f });
  }
  return out;
}
