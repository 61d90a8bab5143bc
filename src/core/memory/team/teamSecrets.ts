// The secret check of team memory: before a push (a hit is never uploaded) and before a memory is
// written into the team folder (a hit is refused with the rule and the line), with the same scanner the
// tool results go through (secretlint's recommended preset plus the Anthropic rule, DESIGN 4).
import { scanSecrets, type ScanOptions } from '../../security/secretScan';

/** The first secret in a team file: the scanner's rule id, what it is, and its 1-based line. */
export interface TeamSecretHit {
  rule: string;
  kind: string;
  line: number;
}

export async function findTeamSecret(text: string, opts: ScanOptions = {}): Promise<TeamSecretHit | null> {
  const [first] = await scanSecrets(text, opts);
  if (!first) return null;
  return { rule: first.ruleId, kind: first.kind, line: lineAt(text, first.start) };
}

/**
 * Why `text` must not be written into the team folder (it holds a secret, and team memory is shared
 * with everyone on the repository), in words naming the rule and the line; null when it may be.
 */
export async function teamWriteProblem(text: string, opts: ScanOptions = {}): Promise<string | null> {
  const hit = await findTeamSecret(text, opts);
  if (!hit) return null;
  return (
    'team memory is shared with everyone on the repository and this text holds a secret ' +
    `(${hit.kind}, rule ${hit.rule}, line ${hit.line}); remove it, or save the memory privately`
  );
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
