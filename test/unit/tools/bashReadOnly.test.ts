import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isReadOnlyCommand } from '../../../src/core/tools/bashReadOnly';

function allowed(cmd: string): void {
  const v = isReadOnlyCommand(cmd);
  assert.deepEqual(v, { ok: true }, `expected allowed: ${cmd} (${v.ok ? '' : v.reason})`);
}

function rejected(cmd: string, reason?: RegExp): void {
  const v = isReadOnlyCommand(cmd);
  assert.equal(v.ok, false, `expected rejected: ${cmd}`);
  if (reason && !v.ok) assert.match(v.reason, reason, cmd);
}

describe('isReadOnlyCommand', () => {
  it('allows the read-only commands with arguments', () => {
    for (const cmd of [
      'ls',
      'ls -la src',
      'find . -name "*.ts" -type f',
      "find src -name '*.md' -print0",
      'grep -rn "TODO" src',
      'grep -E "a|b" file.txt',
      'cat README.md',
      'stat -c %s file',
      'wc -l a.txt b.txt',
      'head -n 20 x',
      'tail -n 50 log.txt',
      'tail -c 100 x',
      'pwd',
      'echo hello world',
      'cat *.md',
      'ls ~/notes',
      'ls {a,b}',
    ]) {
      allowed(cmd);
    }
  });

  it('allows pipes between allowed commands', () => {
    allowed('cat a.txt | grep foo | head -5');
    allowed('find . -type f|wc -l');
    allowed("grep -r 'x' . | tail -n 3");
  });

  it('rejects other commands, with or without pipes', () => {
    rejected('rm -rf /', /not one of the allowed commands/);
    rejected('cat a | sh');
    rejected('cat a | xargs rm');
    rejected('cat a | tee out.txt');
    rejected('sed -i s/a/b/ f');
    rejected('/bin/ls', /not one of the allowed/);
    rejected('git status');
    rejected('time ls');
    rejected('! ls');
    rejected('{ ls; }');
  });

  it('rejects chaining, background jobs and newlines', () => {
    rejected('ls; rm x', /separators/);
    rejected('ls && rm x', /&&/);
    rejected('ls || rm x', /\|\|/);
    rejected('ls & rm x', /background/);
    rejected('ls\nrm x', /newlines/);
    rejected('ls\rrm x', /newlines/);
    rejected('ls \\\nrm', /newlines/);
    rejected('ls |& cat');
    rejected('ls |', /empty command/);
    rejected('| ls', /empty command/);
    rejected('', /empty/);
    rejected('   ', /empty/);
  });

  it('rejects redirections of every kind', () => {
    for (const cmd of [
      'echo x > f',
      'echo x >> f',
      'cat < f',
      'ls 2> err',
      'ls 2>&1',
      'ls &> all',
      'cat <<EOF',
      'ls >| f',
      'cat <(ls)',
    ]) {
      rejected(cmd, /redirection|&-redirection|background|subshell/);
    }
  });

  it('rejects substitutions and expansions, also inside double quotes', () => {
    rejected('echo $(rm x)', /expansion/);
    rejected('echo `rm x`', /substitution/);
    rejected('echo "$(rm x)"', /expansion/);
    rejected('echo "`rm x`"', /expansion/);
    rejected('echo $HOME', /expansion/);
    rejected('echo ${ANTHROPIC_API_KEY}', /expansion/);
    rejected('cat "$FILE"', /expansion/);
    rejected('(ls)', /subshell/);
    rejected('ls $((1+1))');
  });

  it('treats quoted metacharacters as plain text', () => {
    allowed("grep ';' file");
    allowed("grep '&&' file");
    allowed("grep '|' file");
    allowed("echo 'a > b'");
    allowed("grep '$(x)' file");
    allowed("grep '`x`' file");
    allowed('grep "a;b|c>d" file');
    allowed('echo "it\'s"');
    allowed('echo \'say "hi"\'');
    allowed('echo "escaped \\" quote; still quoted"');
    allowed('grep \\; file');
    allowed('grep a\\|b file');
    allowed('echo a#b');
  });

  it('rejects broken quoting', () => {
    rejected("echo 'open", /unterminated single quote/);
    rejected('echo "open', /unterminated double quote/);
    rejected('echo "a\\"', /unterminated double quote/);
    rejected('echo trailing\\', /trailing backslash/);
    rejected("echo 'a\nb'", /newlines/);
  });

  it('resolves quoting in the command name like bash does', () => {
    allowed("'ls' -la");
    allowed('"cat" f');
    allowed('l\\s');
    allowed("c''at f");
    rejected("'rm' x", /not one of the allowed/);
    rejected('"r"m x');
    rejected('l? x', /literal/);
    rejected('c* x', /literal/);
  });

  it('rejects environment assignments', () => {
    rejected('FOO=bar ls', /environment/);
    rejected('LD_PRELOAD=/tmp/x.so cat f', /environment/);
    rejected('A+=1 ls', /environment/);
    rejected('"A=b" ls', /not one of the allowed/);
  });

  it("rejects find's actions that run or write", () => {
    rejected('find . -exec rm {} \\;');
    rejected('find . -name x -exec rm {} +', /-exec/);
    rejected('find . -execdir ls', /-execdir/);
    rejected('find . -ok rm {}', /-ok/);
    rejected('find . -okdir rm {}', /-okdir/);
    rejected('find . -delete', /-delete/);
    rejected("find . '-delete'", /-delete/);
    rejected('find . -fprint out', /-fprint/);
    rejected('find . -fprint0 out', /-fprint0/);
    rejected('find . -fprintf out %p', /-fprintf/);
    rejected('find . -fls out', /-fls/);
    rejected('ls | find . -delete', /-delete/);
  });

  it('rejects unquoted globs and braces in find arguments (file names could become actions)', () => {
    rejected('find . -name *.ts', /quote/);
    rejected('find . -de{l,}ete', /quote/);
    allowed("find . -name '*.ts'");
    allowed('find . -name \\*.ts');
  });

  it('rejects tail -f and friends, which never end', () => {
    rejected('tail -f log', /follow/);
    rejected('tail -F log', /follow/);
    rejected('tail -n 5 -f log', /follow/);
    rejected('tail --follow=name log', /follow/);
    rejected('tail -5f log', /follow/);
    rejected('tail --retry log', /follow/);
    // GNU accepts any unambiguous prefix of a long option (issue #13).
    rejected('tail --f log', /follow/);
    rejected('tail --fo log', /follow/);
    rejected('tail --foll=descriptor log', /follow/);
    rejected('tail --re log', /follow/);
    allowed('tail --lines=5 log');
    allowed('tail --bytes 10 log');
  });

  it("rejects reading any process's environment, command line or memory (issue #13)", () => {
    for (const cmd of [
      'grep -a ANTHROPIC /proc/*/environ',
      'cat /proc/1234/environ',
      'cat /proc/self/environ',
      "cat '/proc/1/environ'",
      'cat /proc//1/./environ',
      'head -c 100 /proc/1/cmdline',
      'tail -c 10 /proc/1/mem',
      'cat /proc/1/env*',
      'cat /proc/1/e?viron',
      'cat /proc/1/env[i]ron',
      'cat /proc/1/{environ,status}',
      'grep -a KEY /*/*/environ',
      'cat /dev/fd/../../1/environ',
      'cat ../../proc/1/environ',
      'grep -f /proc/1/environ x',
      'grep --file=/proc/1/environ x',
      'cat e\\nviron',
      'cat /proc/1/task/1/environ',
      'grep -r sk-ant /proc',
      'grep -rn KEY /',
      'grep -R KEY /p*',
      'grep --recursive KEY ../..',
      'grep -r KEY /dev/fd/..',
      'ls | grep -ra KEY /proc/1',
    ]) {
      rejected(cmd, /environment|process|\/proc|recursive/);
    }
    allowed('cat /proc/cpuinfo');
    allowed('grep -rn environment src');
    allowed('grep -r TODO .');
    allowed('cat docs/memory.md');
    allowed('ls *');
  });

  it('rejects comments and control characters', () => {
    rejected('ls # rm -rf /', /comments/);
    rejected('ls \u0000', /control/);
    rejected('ls \u001b[1m', /control/);
    allowed('ls\tsrc');
  });
});
