// The simple commands a shell command line is made of, for permission rules: `npm test && git push`
// is two commands, and a rule must judge each. Splits at &&, ||, ;, |, & and newlines outside quotes,
// and also at the edges of subshells and substitutions ((...), $(...), `...`, <(...)), so a command
// hidden inside one is still seen by deny rules. Not a full shell parser: anything it cannot be sure of
// makes the line count as "has substitution", which no allow rule lets through.

export interface ShellParts {
  /** Each simple command, trimmed, in order (empty ones left out). */
  parts: string[];
  /** The line runs something it builds at run time ($(...), backticks, <(...), >(...), ${...}, eval). */
  substitution: boolean;
  /** More than one simple command. */
  compound: boolean;
}

/** Splits `command` into the simple commands a shell would run. */
export function shellParts(command: string): ShellParts {
  const parts: string[] = [];
  let current = '';
  let substitution = false;
  const cut = (): void => {
    const t = current.trim();
    if (t !== '') parts.push(t);
    current = '';
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    const next = command[i + 1];
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      const end = close === -1 ? command.length : close + 1;
      current += command.slice(i, end);
      i = end - 1;
      continue;
    }
    if (c === '\\') {
      current += command.slice(i, i + 2);
      i++;
      continue;
    }
    if (c === '"') {
      // Inside double quotes only substitutions matter; they mark the line and are kept in the word.
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === '\\') j++;
        else if (command[j] === '`' || (command[j] === '$' && '({'.includes(command[j + 1] ?? ''))) substitution = true;
      }
      current += command.slice(i, j + 1);
      i = j;
      continue;
    }
    if (c === '$' && (next === '(' || next === '{')) {
      substitution = true;
      cut();
      i++;
      continue;
    }
    if (c === '`' || ((c === '<' || c === '>') && next === '(')) {
      substitution = true;
      cut();
      if (c !== '`') i++;
      continue;
    }
    if (c === '(' || c === ')' || c === '{' || c === '}') {
      // A subshell or group: its commands are judged one by one. `{`/`}` only as whole words.
      if ((c === '{' || c === '}') && !wordEdge(command, i)) {
        current += c;
        continue;
      }
      cut();
      continue;
    }
    if (c === ';' || c === '\n' || c === '\r' || c === '|' || (c === '&' && next !== '>' && command[i - 1] !== '>')) {
      cut();
      if ((c === '|' || c === '&') && (next === c || (c === '|' && next === '&'))) i++;
      continue;
    }
    current += c;
  }
  cut();
  if (parts.some((p) => /^(eval|exec)(\s|$)/.test(stripPrefixes(p)))) substitution = true;
  return { parts, substitution, compound: parts.length > 1 };
}

function wordEdge(s: string, i: number): boolean {
  const before = i === 0 ? ' ' : s[i - 1];
  const after = s[i + 1] ?? ' ';
  return /[\s;&|]/.test(before) || /[\s;&|]/.test(after);
}

/** Words that run the command after them: `env X=1 git push` and `sudo git push` are `git push` to a deny rule. */
const RUNNERS = new Set(['env', 'command', 'builtin', 'nohup', 'time', 'sudo', 'doas', 'nice', 'exec']);

/**
 * The command with leading variable assignments and runner words taken off (`FOO=1 env git push` ->
 * `git push`), so that a deny rule is not dodged by a prefix. Options of the runners are not parsed:
 * `sudo -u x git push` keeps its `-u x`.
 */
export function stripPrefixes(part: string): string {
  let rest = part.trim();
  for (;;) {
    const assignment = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|\S*)\s+/.exec(rest);
    if (assignment) {
      rest = rest.slice(assignment[0].length);
      continue;
    }
    const word = /^(\S+)\s+/.exec(rest);
    if (word && RUNNERS.has(word[1])) {
      rest = rest.slice(word[0].length);
      continue;
    }
    return rest;
  }
}

/**
 * Whether a simple command writes a file by redirection (`> f`, `>> f`, `&> f`; not `2>&1` nor
 * `> /dev/null`): a prefix rule (`Bash(npm test:*)`) allows running a command, not writing where it likes.
 */
export function redirectsToFile(part: string): boolean {
  const bare = part
    .replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\\./g, '')
    .replace(/\d*>&\d+|(?:\d*|&)>>?\s*\/dev\/null\b/g, '');
  return bare.includes('>');
}
