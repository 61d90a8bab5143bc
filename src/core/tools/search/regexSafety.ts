// Which regular expressions the JavaScript engine refuses: JS regexes backtrack, so a repeat inside a
// repeat (`(a+)+$`, `(\w*)*`) or a backreference can take exponential time on one unlucky line, and a
// search in the extension host cannot be interrupted once the regex runs. ripgrep's engine does not
// backtrack (and PCRE2, which it uses for backreferences, has a match limit), so it runs them.

/** Why the JavaScript engine will not run this pattern, or null when it is safe. */
export function unsafeForJs(pattern: string): string | null {
  if (/\\[1-9]|\\k</.test(stripClassesAndEscapes(pattern, true)))
    return 'it uses a backreference, which can take exponential time';
  if (nestedRepeat(pattern))
    return 'it repeats a group that itself repeats (like (a+)+), which can take exponential time';
  return null;
}

/** Whether the pattern has `\n` outside a character class: it can only match across lines (multiline). */
export function matchesNewline(pattern: string): boolean {
  return /\\n/.test(stripClassesAndEscapes(pattern, true).replace(/\\\\/g, '__'));
}

/** The pattern with character classes blanked (`[...]` becomes `_`); other escapes kept when `keepEscapes`. */
function stripClassesAndEscapes(p: string, keepEscapes: boolean): string {
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      out += keepEscapes ? p.slice(i, i + 2) : '_';
      i++;
    } else if (c === '[') {
      let j = i + 1;
      if (p[j] === '^') j++;
      if (p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') j += p[j] === '\\' ? 2 : 1;
      out += '_';
      i = j;
    } else out += c;
  }
  return out;
}

/** Whether an unbounded repeat (`*`, `+`, `{n,}`, `{n,m}` with m > 1) applies to a group containing one. */
function nestedRepeat(pattern: string): boolean {
  const p = stripClassesAndEscapes(pattern, false);
  const stack: boolean[] = [];
  let inner = false; // the current group (or top level) holds an unbounded repeat
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '(') {
      stack.push(inner);
      inner = false;
    } else if (c === ')') {
      const groupRepeats: boolean = inner;
      const rep = repeatAt(p, i + 1);
      if (groupRepeats && rep) return true;
      inner = (stack.pop() ?? false) || groupRepeats || rep;
    } else if (repeatAt(p, i)) inner = true;
  }
  return false;
}

function repeatAt(p: string, i: number): boolean {
  const c = p[i];
  if (c === '*' || c === '+') return true;
  if (c !== '{') return false;
  const m = /^\{(\d*)(,(\d*))?\}/.exec(p.slice(i));
  if (!m || m[2] === undefined) return false;
  return m[3] === '' || Number(m[3]) > 1;
}
