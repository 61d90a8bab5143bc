import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseRule,
  PermissionRules,
  suggestRule,
  type RuleSource,
  type SourcedRule,
} from '../../../src/core/agent/permissionRules';
import { createDefaultTools } from '../../../src/core/tools/defaultTools';
import type { Tool } from '../../../src/core/tools/tool';

const PROJECT = '/work/proj';
const HOME = '/home/me';
const tools = new Map(createDefaultTools().map((t) => [t.name, t as Tool]));
const tool = (name: string): Tool => tools.get(name) ?? assert.fail(`no tool ${name}`);

function rule(text: string, behavior: 'allow' | 'deny', source: RuleSource = 'user'): SourcedRule {
  const parsed = parseRule(text);
  if ('error' in parsed) assert.fail(parsed.error);
  return { ...parsed, behavior, source };
}

function rules(allow: string[], deny: string[] = []): PermissionRules {
  return new PermissionRules([...allow.map((r) => rule(r, 'allow')), ...deny.map((r) => rule(r, 'deny'))], {
    home: HOME,
  });
}

const bash = (r: PermissionRules, command: string) => r.decide(tool('Bash'), { command }, PROJECT).behavior;

function mcpTool(server: string, name: string): Tool {
  return { ...tool('Read'), name: `mcp__${server}__${name}`, readOnly: false, mcp: { server, tool: name } };
}

describe('parseRule', () => {
  it('reads a whole tool, a tool with a specifier, MCP names, and says what is wrong with the rest', () => {
    assert.deepEqual(parseRule('Bash'), { text: 'Bash', tool: 'Bash' });
    assert.deepEqual(parseRule(' Bash(npm test:*) '), {
      text: 'Bash(npm test:*)',
      tool: 'Bash',
      specifier: 'npm test:*',
    });
    assert.deepEqual(parseRule('Bash(*)'), { text: 'Bash(*)', tool: 'Bash' });
    assert.deepEqual(parseRule('mcp__github__*'), { text: 'mcp__github__*', tool: 'mcp__github__*' });
    assert.deepEqual(parseRule('Bash(echo (a))'), { text: 'Bash(echo (a))', tool: 'Bash', specifier: 'echo (a)' });
    for (const [bad, says] of [
      ['', 'empty'],
      ['Bash(npm test', 'must end with ")"'],
      ['Bash()', 'empty (...)'],
      ['mcp__github(x)', 'MCP rules'],
      ['Ba sh', 'not a tool name'],
      ['Bash)', 'without "("'],
    ] as const) {
      const parsed = parseRule(bad);
      assert.ok('error' in parsed && parsed.error.includes(says), `${bad}: ${JSON.stringify(parsed)}`);
    }
  });
});

describe('PermissionRules: Bash', () => {
  it('matches exact commands, :* and " *" prefixes on a word boundary, and a trailing *', () => {
    const r = rules(['Bash(npm test)', 'Bash(git status:*)', 'Bash(make *)', 'Bash(./scripts/run*)']);
    assert.equal(bash(r, 'npm test'), 'allow');
    assert.equal(bash(r, 'npm test --watch'), 'ask');
    assert.equal(bash(r, 'git status'), 'allow');
    assert.equal(bash(r, 'git status --short'), 'allow');
    assert.equal(bash(r, 'git statusx'), 'ask');
    assert.equal(bash(r, 'make build'), 'allow');
    assert.equal(bash(r, 'maker'), 'ask');
    assert.equal(bash(r, './scripts/run-all.sh'), 'allow');
  });

  it('allows a compound command only when every part is allowed or only reads; any denied part denies it', () => {
    const r = rules(['Bash(npm test:*)'], ['Bash(git push:*)']);
    assert.equal(bash(r, 'npm test && git push'), 'deny');
    assert.equal(bash(rules(['Bash(npm test)']), 'npm test && git push'), 'ask');
    assert.equal(bash(r, 'npm test && ls src | grep x'), 'allow');
    assert.equal(bash(r, 'npm test; rm -rf build'), 'ask');
    assert.equal(bash(r, 'npm test || echo failed'), 'allow');
    assert.equal(bash(r, 'cat a\ngit push origin'), 'deny');
    assert.equal(bash(r, 'echo "a && git push"'), 'ask', 'a quoted && is one command, not allowed by npm test');
  });

  it('never auto-allows substitutions, and finds denied commands inside them and behind prefixes', () => {
    const r = rules(['Bash(npm test:*)', 'Bash(echo:*)'], ['Bash(git push:*)']);
    assert.equal(bash(r, 'npm test $(whoami)'), 'ask');
    assert.equal(bash(r, 'echo `id`'), 'ask');
    assert.equal(bash(r, 'echo "$(date)"'), 'ask');
    assert.equal(bash(r, 'echo $(git push)'), 'deny');
    assert.equal(bash(r, '(cd x && git push)'), 'deny');
    assert.equal(bash(r, 'FOO=1 env git push --force'), 'deny');
    assert.equal(bash(r, 'sudo git push'), 'deny');
    assert.equal(bash(r, `bash -c 'cd x && git push'`), 'deny');
    assert.equal(bash(r, '/bin/sh -c "git push -f"'), 'deny');
  });

  it('a prefix rule does not let a command write a file by redirection; 2>&1 and /dev/null are fine', () => {
    const r = rules(['Bash(npm test:*)', 'Bash(echo hi > out.txt)']);
    assert.equal(bash(r, 'npm test > ~/.bashrc'), 'ask');
    assert.equal(bash(r, 'npm test >> log'), 'ask');
    assert.equal(bash(r, 'npm test 2>&1 | grep ok'), 'allow');
    assert.equal(bash(r, 'npm test > /dev/null 2>&1'), 'allow');
    assert.equal(bash(r, 'npm test -- --grep ">"'), 'allow', 'a quoted > is an argument');
    assert.equal(bash(r, 'echo hi > out.txt'), 'allow', 'an exact rule names the redirection itself');
  });

  it('a whole-tool rule takes every command; an exact compound rule takes that line', () => {
    assert.equal(bash(rules(['Bash']), 'rm -rf / && echo $(x)'), 'allow');
    assert.equal(bash(rules(['Bash'], ['Bash']), 'ls'), 'deny');
    assert.equal(bash(rules(['Bash(npm ci && npm test)']), 'npm ci && npm test'), 'allow');
    assert.equal(bash(rules(['Bash(npm ci && npm test)'], ['Bash(npm ci:*)']), 'npm ci && npm test'), 'deny');
  });
});

describe('PermissionRules: paths', () => {
  const edit = (r: PermissionRules, file: string, name = 'Edit') =>
    r.decide(tool(name), { file_path: file, old_string: 'a', new_string: 'b' }, PROJECT).behavior;

  it('Edit(src/**) allows edits and writes under src, not lib/ nor ../src', () => {
    const r = rules(['Edit(src/**)']);
    assert.equal(edit(r, 'src/a/b.ts'), 'allow');
    assert.equal(edit(r, `${PROJECT}/src/x.ts`, 'Write'), 'allow');
    assert.equal(edit(r, 'lib/x.ts'), 'ask');
    assert.equal(edit(r, '../src/x.ts'), 'ask');
    assert.equal(edit(r, 'src/../lib/x.ts'), 'ask');
    assert.equal(edit(rules(['Edit(/src/**)']), 'src/a.ts'), 'allow', 'a leading / is the project root');
    assert.equal(edit(rules(['Write(src/**)']), 'src/a.ts'), 'ask', 'a Write rule does not cover Edit');
    assert.equal(edit(rules(['Edit(*.md)']), 'docs/deep/a.md'), 'allow', 'a pattern without / matches at any depth');
  });

  it('Read(~/.ssh/**) in deny blocks Read, Grep and Glob of ~/.ssh, not of the project', () => {
    const r = rules(['Read', 'Grep'], ['Read(~/.ssh/**)']);
    assert.equal(r.decide(tool('Read'), { file_path: '~/.ssh/id_rsa' }, PROJECT).behavior, 'deny');
    assert.equal(r.decide(tool('Read'), { file_path: `${HOME}/.ssh/config` }, PROJECT).behavior, 'deny');
    assert.equal(r.decide(tool('Grep'), { pattern: 'KEY', path: `${HOME}/.ssh` }, PROJECT).behavior, 'deny');
    assert.equal(r.decide(tool('Glob'), { pattern: '*', path: '~/.ssh' }, PROJECT).behavior, 'deny');
    assert.equal(r.decide(tool('Grep'), { pattern: 'KEY' }, PROJECT).behavior, 'allow');
    assert.equal(r.decide(tool('Glob'), { pattern: `${HOME}/.ssh/*` }, PROJECT).behavior, 'deny');
    assert.equal(r.decide(tool('Glob'), { pattern: '.ssh/id_*', path: HOME }, PROJECT).behavior, 'deny');
    assert.equal(r.decide(tool('Read'), { file_path: `${HOME}/notes.txt` }, PROJECT).behavior, 'allow');
    const abs = rules([], ['Read(//etc/**)']);
    assert.equal(abs.decide(tool('Read'), { file_path: '/etc/hosts' }, PROJECT).behavior, 'deny');
    assert.equal(abs.decide(tool('Read'), { file_path: 'etc/hosts' }, PROJECT).behavior, 'ask');
  });
});

describe('PermissionRules: MCP and precedence', () => {
  it('matches a server, a server with *, and one tool, by the model-facing name and by tool.mcp', () => {
    const create = mcpTool('github', 'create_issue');
    const list = mcpTool('github', 'list_issues');
    const other = mcpTool('jira', 'create_issue');
    const decide = (r: PermissionRules, t: Tool) => r.decide(t, {}, PROJECT).behavior;
    for (const server of ['mcp__github', 'mcp__github__*']) {
      assert.equal(decide(rules([server]), create), 'allow');
      assert.equal(decide(rules([server]), list), 'allow');
      assert.equal(decide(rules([server]), other), 'ask');
    }
    assert.equal(decide(rules(['mcp__github__create_issue']), create), 'allow');
    assert.equal(decide(rules(['mcp__github__create_issue']), list), 'ask');
    const renamed = { ...create, name: 'mcp__github__create_issue_1a2b' };
    assert.equal(decide(rules(['mcp__github__create_issue']), renamed), 'allow', 'the raw name counts too');
    assert.equal(decide(rules(['mcp__github'], ['mcp__github__create_issue']), create), 'deny');
  });

  it('a deny rule from any source beats an allow rule from any other, and names itself', () => {
    const r = new PermissionRules([
      rule('Bash(git push:*)', 'allow', 'local'),
      { ...rule('Bash(git push:*)', 'deny', 'user'), file: '/home/me/.engram/settings.json' },
    ]);
    const verdict = r.decide(tool('Bash'), { command: 'git push' }, PROJECT);
    assert.equal(verdict.behavior, 'deny');
    assert.equal(verdict.rule?.source, 'user');
  });
});

describe('suggestRule', () => {
  it('saves a prefix for a stable command, else the exact one; a folder for edits; MCP and other tools by name', () => {
    const s = (name: string, input: Record<string, unknown>) => suggestRule(tool(name), input, PROJECT, HOME);
    assert.equal(s('Bash', { command: 'npm test -- --grep x' }), 'Bash(npm test:*)');
    assert.equal(s('Bash', { command: 'git push origin main' }), 'Bash(git push:*)');
    assert.equal(s('Bash', { command: 'rm -rf build' }), 'Bash(rm -rf build)');
    assert.equal(s('Bash', { command: 'npm test && npm run lint' }), 'Bash(npm test && npm run lint)');
    assert.equal(s('Bash', { command: 'rm -rf *' }), undefined, 'would read as the prefix rm -rf');
    assert.equal(s('Edit', { file_path: 'src/a/b.ts' }), 'Edit(src/a/**)');
    assert.equal(s('Write', { file_path: `${PROJECT}/README.md` }), 'Edit(/**)');
    assert.equal(s('Write', { file_path: `${HOME}/x/y.txt` }), 'Edit(~/x/**)');
    assert.equal(s('Read', { file_path: '/etc/hosts' }), 'Read(//etc/**)');
    assert.equal(suggestRule(mcpTool('github', 'create_issue'), {}, PROJECT), 'mcp__github__create_issue');
  });

  it('the suggested rule, saved, allows the call it was made for', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['Bash', { command: 'npm test -- --grep x' }],
      ['Bash', { command: 'rm -rf build' }],
      ['Edit', { file_path: 'src/a/b.ts' }],
      ['Write', { file_path: `${PROJECT}/README.md` }],
      ['Write', { file_path: `${HOME}/x/y.txt` }],
      ['Read', { file_path: '/etc/hosts' }],
      ['Grep', { pattern: 'x', path: '/var/log' }],
    ];
    for (const [name, input] of cases) {
      const text = suggestRule(tool(name), input, PROJECT, HOME) ?? assert.fail(`no rule for ${name}`);
      assert.equal(rules([text]).decide(tool(name), input, PROJECT).behavior, 'allow', text);
    }
  });
});

describe('PermissionRules: tool families', () => {
  it('a whole-tool allow names that tool alone; a whole-tool deny and path rules cover the family', () => {
    const decide = (r: PermissionRules, name: string, input: Record<string, unknown>) =>
      r.decide(tool(name), input, PROJECT).behavior;
    assert.equal(decide(rules(['Read']), 'Grep', { pattern: 'x' }), 'ask');
    assert.equal(decide(rules(['Edit']), 'Write', { file_path: 'a' }), 'ask');
    assert.equal(decide(rules([], ['Edit']), 'Write', { file_path: 'a' }), 'deny');
    assert.equal(decide(rules(['Read(src/**)']), 'Grep', { pattern: 'x', path: 'src' }), 'allow');
    assert.equal(decide(rules(['Edit(src/**)']), 'Write', { file_path: 'src/a' }), 'allow');
  });
});
