// Decides whether a shell command is safe to run without asking: only a few commands that read files,
// alone or piped into each other, with no redirection, substitution, chaining or expansion that could
// change what actually runs. It is deliberately strict: anything it does not understand is rejected.
// Used by the background memory agent, which may look around the workspace but must not change it.

/** Commands that only read files or print. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set(['ls', 'find', 'grep', 'cat', 'stat', 'wc', 'head', 'tail', 'pwd', 'echo']);

/** find's actions that run programs or write files. */
const FIND_FORBIDDEN = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

export type ReadOnlyVerdict = { ok: true } | { ok: false; reason: string };

interface Word {
  /** The word as bash will see it after quote removal. */
  value: string;
  /** The word as written, quotes included. */
  raw: string;
  /** Contains an unquoted glob or brace character, so bash may expand it into other words. */
  expands: boolean;
}

type Token = Word | 'pipe';

export function isReadOnlyCommand(cmd: string): ReadOnlyVerdict {
  const tokens = tokenize(cmd);
  if (typeof tokens === 'string') return no(tokens);
  const segments: Word[][] = [[]];
  for (const t of tokens) {
    if (t === 'pipe') segments.push([]);
    else segments[segments.length - 1].push(t);
  }
  if (segments.length === 1 && segments[0].length === 0) return no('empty command');
  for (const words of segments) {
    const verdict = checkSimpleCommand(words);
    if (!verdict.ok) return verdict;
  }
  return { ok: true };
}

function no(reason: string): ReadOnlyVerdict {
  return { ok: false, reason };
}

function checkSimpleCommand(words: Word[]): ReadOnlyVerdict {
  if (words.length === 0) return no('empty command in a pipeline');
  const [name, ...args] = words;
  if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(name.raw)) return no('environment variable assignments are not allowed');
  // A glob in the command word would let file names in the directory choose the program.
  if (name.expands) return no(`the command name must be literal: ${name.raw}`);
  if (!READ_ONLY_COMMANDS.has(name.value)) {
    return no(`"${name.value}" is not one of the allowed commands (${[...READ_ONLY_COMMANDS].join(', ')})`);
  }
  if (name.value === 'find') {
    for (const a of args) {
      if (FIND_FORBIDDEN.has(a.value)) return no(`find ${a.value} is not allowed: it runs programs or writes files`);
      // Unquoted globs/braces expand before find sees them: a file named "-delete" would become an action.
      if (a.expands) return no(`quote find's patterns (e.g. -name '*.ts'): ${a.raw}`);
    }
  }
  if (name.value === 'tail') {
    for (const a of args) {
      // Following a file never ends: the command would hang until its timeout.
      if (/^--(follow|retry)/.test(a.value) || /^-[^-]*[fF]/.test(a.value)) return no('tail -f/--follow is not allowed');
    }
  }
  return { ok: true };
}

/** A small POSIX-shell tokenizer: words and pipes; everything else that bash treats specially is an error. */
function tokenize(cmd: string): Token[] | string {
  const tokens: Token[] = [];
  let value = '';
  let raw = '';
  let expands = false;
  let inWord = false;
  const endWord = (): void => {
    if (inWord) tokens.push({ value, raw, expands });
    value = '';
    raw = '';
    expands = false;
    inWord = false;
  };

  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i];
    const code = c.charCodeAt(0);
    if (c === '\n' || c === '\r') return 'newlines are not allowed (one command only)';
    if ((code < 0x20 && c !== '\t') || code === 0x7f) return 'control characters are not allowed';
    if (c === ' ' || c === '\t') {
      endWord();
      continue;
    }
    if (c === "'") {
      const close = cmd.indexOf("'", i + 1);
      if (close === -1) return 'unterminated single quote';
      const body = cmd.slice(i + 1, close);
      if (/[\n\r]/.test(body)) return 'newlines are not allowed (one command only)';
      value += body;
      raw += cmd.slice(i, close + 1);
      inWord = true;
      i = close;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let body = '';
      for (; j < cmd.length && cmd[j] !== '"'; j++) {
        const d = cmd[j];
        if (d === '$' || d === '`') return 'expansions ($, `) are not allowed, even in double quotes';
        if (d === '\n' || d === '\r') return 'newlines are not allowed (one command only)';
        if (d === '\\' && j + 1 < cmd.length && '$`"\\'.includes(cmd[j + 1])) {
          body += cmd[++j];
        } else {
          body += d;
        }
      }
      if (j >= cmd.length) return 'unterminated double quote';
      value += body;
      raw += cmd.slice(i, j + 1);
      inWord = true;
      i = j;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= cmd.length) return 'trailing backslash';
      const next = cmd[i + 1];
      if (next === '\n' || next === '\r') return 'newlines are not allowed (one command only)';
      value += next;
      raw += c + next;
      inWord = true;
      i++;
      continue;
    }
    if (c === '$') return 'expansions and substitutions ($VAR, $(...), ${...}) are not allowed';
    if (c === '`') return 'command substitution (`...`) is not allowed';
    if (c === ';') return 'command separators (;) are not allowed';
    if (c === '&') return cmd[i + 1] === '&' ? 'chaining with && is not allowed' : 'background jobs and &-redirections are not allowed';
    if (c === '|') {
      if (cmd[i + 1] === '|') return 'chaining with || is not allowed';
      if (cmd[i + 1] === '&') return '|& is not allowed';
      endWord();
      tokens.push('pipe');
      continue;
    }
    if (c === '>' || c === '<') return 'redirections (<, >, >>, 2>, <<) are not allowed';
    if (c === '(' || c === ')') return 'subshells, process substitution and extended globs are not allowed';
    if (c === '#' && !inWord) return 'comments are not allowed';
    if ('*?[]{}'.includes(c)) expands = true;
    value += c;
    raw += c;
    inWord = true;
  }
  endWord();
  return tokens;
}
