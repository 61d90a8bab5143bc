// Decides whether a shell command is safe to run without asking: only a few commands that read files,
// alone or piped into each other, with no redirection, substitution, chaining or expansion that could
// change what actually runs. It is deliberately strict: anything it does not understand is rejected.
// Used by the background memory agent, which may look around the workspace but must not change it,
// and by headless runs. No argument may reach a process's environment, command line or memory under
// /proc (the engine's API key is in its environment), nor may grep search /proc or the root recursively.
import { PROC_SECRET_FILES } from '../security/procFiles';
import { expandBraces } from './grepSearch';

/** Commands that only read files or print. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'ls',
  'find',
  'grep',
  'cat',
  'stat',
  'wc',
  'head',
  'tail',
  'pwd',
  'echo',
]);

/** find's actions that run programs or write files. */
const FIND_FORBIDDEN = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
]);

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
      // Following a file never ends: the command would hang until its timeout. GNU takes any
      // unambiguous prefix of a long option, so --f and --fo are --follow.
      const long = /^--([^=]+)/.exec(a.value)?.[1];
      if (
        (long !== undefined && ('follow'.startsWith(long) || 'retry'.startsWith(long))) ||
        /^-[^-]*[fF]/.test(a.value)
      ) {
        return no('tail -f/--follow is not allowed');
      }
    }
  }
  for (const a of args) {
    if (reachesProcSecret(a))
      return no(`reading a process's environment, command line or memory under /proc is not allowed: ${a.raw}`);
  }
  if (name.value === 'grep' && isRecursiveGrep(args)) {
    const wide = args.find((a) => !a.value.startsWith('-') && searchesWide(a));
    if (wide)
      return no(
        'a recursive grep of /, /proc or a path with ".." is not allowed ' +
          `(it would read other processes' environments): ${wide.raw}`,
      );
  }
  return { ok: true };
}

/** The names a word may stand for: brace alternatives when it expands, else its value. */
function alternatives(w: Word): string[] {
  return w.expands && w.value.includes('{') ? expandBraces(w.value) : [w.value];
}

function segmentsOf(p: string): string[] {
  return p.split('/').filter((s) => s !== '' && s !== '.');
}

/** A path segment, possibly a glob when the word expands, that can name `target`. */
function segmentCanBe(seg: string, target: string, glob: boolean): boolean {
  if (!glob || !/[*?[]/.test(seg)) return seg === target;
  return globRegExp(seg).test(target);
}

function globRegExp(seg: string): RegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close === -1) re += '\\[';
      else {
        const body = seg
          .slice(i + 1, close)
          .replace(/^[!^]/, '^')
          .replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * The word can name /proc/<pid>/environ (cmdline, mem): a segment that is one of those names, or, when
 * the path may lead to /proc (absolute, "..", a proc segment), a glob that can match one. `ls *` in
 * the workspace is fine; a literal `environ` anywhere is not (a planted link may lead to /proc/<pid>).
 */
function reachesProcSecret(w: Word): boolean {
  return alternatives(w).some((alt) => {
    // Options carry paths after `=` (--file=/proc/1/environ) or glued (-f/proc/1/environ).
    const segs = segmentsOf(alt);
    const anywhere = alt.startsWith('/') || segs.includes('..');
    const firstProc = segs.findIndex((seg) => segmentCanBe(seg, 'proc', w.expands));
    return segs.some((seg, j) =>
      PROC_SECRET_FILES.some(
        (f) => seg === f || ((anywhere || (firstProc !== -1 && firstProc < j)) && segmentCanBe(seg, f, w.expands)),
      ),
    );
  });
}

function isRecursiveGrep(args: Word[]): boolean {
  return args.some((a, i) => {
    const v = a.value;
    if (v === '--') return false;
    if (v.startsWith('--')) {
      const [opt, val] = v.slice(2).split('=', 2);
      if (opt.length >= 3 && ('recursive'.startsWith(opt) || 'dereference-recursive'.startsWith(opt))) return true;
      return opt.length >= 2 && 'directories'.startsWith(opt) && (val ?? args[i + 1]?.value) === 'recurse';
    }
    if (!v.startsWith('-')) return false;
    if (/^-[A-Za-z]*[rR]/.test(v)) return true;
    return /^-[A-Za-z]*d(recurse)?$/.test(v) && (v.endsWith('recurse') || args[i + 1]?.value === 'recurse');
  });
}

/** A search root that takes in /proc: /, anything starting at /proc (or a glob there), or a path with "..". */
function searchesWide(w: Word): boolean {
  return alternatives(w).some((alt) => {
    const segs = segmentsOf(alt);
    if (segs.includes('..')) return true;
    if (!alt.startsWith('/')) return false;
    return segs.length === 0 || segmentCanBe(segs[0], 'proc', w.expands) || (w.expands && /[*?[]/.test(segs[0]));
  });
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
    if (c === '&')
      return cmd[i + 1] === '&'
        ? 'chaining with && is not allowed'
        : 'background jobs and &-redirections are not allowed';
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
