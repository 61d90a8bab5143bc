// The texts a host source file hands to a translating call (vscode.l10n.t and the like), read the way
// the bundle keys them: a text written over several lines as 'first part ' + 'second part' is one key.
// Shared by the string tests, so that breaking a long text into parts never hides it from their scan.

/** One quoted string literal, '…' or "…", with its escapes. */
const QUOTED = String.raw`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"`;

/**
 * Each text passed first to a call whose callee matches `callee` (a regular expression source, e.g.
 * `vscode\.l10n\.t`), with its parts joined and its escapes undone.
 */
export function translatedTexts(source: string, callee: string): string[] {
  const call = new RegExp(String.raw`(?:${callee})\(\s*((?:${QUOTED})(?:\s*\+\s*(?:${QUOTED}))*)`, 'g');
  return [...source.matchAll(call)].map((m) =>
    [...m[1].matchAll(new RegExp(QUOTED, 'g'))].map((q) => q[0].slice(1, -1).replace(/\\(.)/g, '$1')).join(''),
  );
}
