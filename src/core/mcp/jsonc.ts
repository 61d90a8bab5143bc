// Reads JSON with comments and trailing commas (JSONC, as VS Code's `.vscode/mcp.json` allows): comments
// and the commas before a closing bracket are blanked out by a scanner that knows strings, so a `//` or a
// `,]` inside a string value is kept as written. What remains is handed to JSON.parse.

/** JSONC text -> plain JSON text of the same length (comments become spaces, newlines kept for line numbers). */
export function stripJsonc(text: string): string {
  const out = text.split('');
  let i = 0;
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  /** Index of the last comma since the last value token, or -1. */
  let pendingComma = -1;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      pendingComma = -1;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === ',') {
      pendingComma = i;
      i++;
    } else if (c === '}' || c === ']') {
      if (pendingComma >= 0) out[pendingComma] = ' ';
      pendingComma = -1;
      i++;
    } else {
      if (!/\s/.test(c)) pendingComma = -1;
      i++;
    }
  }
  return out.join('');
}

/** Parses JSONC; throws JSON.parse's error for text that is not JSON even without comments. */
export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text.replace(/^\uFEFF/, '')));
}
