import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SessionPermissions } from '../../../src/core/agent/permissions';
import { loadRuleFiles, permissionRulesInForce } from '../../../src/core/agent/permissionFiles';
import { RuleBook } from '../../../src/core/agent/ruleBook';
import type { PermissionAnswer, PermissionRequest } from '../../../src/core/ports';
import { bashTool } from '../../../src/core/tools/bashTool';
import { editTool } from '../../../src/core/tools/editTool';
import { readTool } from '../../../src/core/tools/readTool';
import type { Tool } from '../../../src/core/tools/tool';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();
const NO_SETTINGS = { allow: [], deny: [] };

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
}

function folders() {
  const dataDir = tempDir('engram-data-');
  const project = tempDir('engram-proj-');
  return { dataDir, project, projectFile: path.join(project, '.engram', 'settings.json') };
}

function call(summary = 'x') {
  return { toolUseId: 'toolu_1', summary, signal: new AbortController().signal };
}

/** A prompt that answers from `answers` in turn and keeps what it was asked. */
function prompt(answers: PermissionAnswer[]) {
  const asked: PermissionRequest[] = [];
  return { asked, ask: async (r: PermissionRequest) => (asked.push(r), answers.shift() ?? 'deny') };
}

const bash = bashTool() as unknown as Tool;

describe('permission rule files', () => {
  it('deny from any source beats allow from any other; an untrusted workspace drops the project allow rules only', async () => {
    const { dataDir, project, projectFile } = folders();
    writeJson(path.join(dataDir, 'settings.json'), { permissions: { deny: ['Bash(git push:*)'] } });
    writeJson(projectFile, {
      permissions: { allow: ['Bash(git push:*)', 'Bash(npm test:*)'], deny: ['Edit(dist/**)'] },
    });
    const book = (trusted: boolean) =>
      new RuleBook({ dataDir, projectRoot: project, trusted, settings: () => ({ allow: ['Bash(make:*)'], deny: [] }) });
    const trusted = book(true);
    const push = await trusted.decide(bash, { command: 'git push origin' });
    assert.equal(push.behavior, 'deny');
    assert.equal(push.rule?.file, path.join(dataDir, 'settings.json'));
    assert.equal((await trusted.decide(bash, { command: 'npm test' })).behavior, 'allow');
    assert.equal((await trusted.decide(bash, { command: 'make all' })).behavior, 'allow');
    const untrusted = book(false);
    assert.equal((await untrusted.decide(bash, { command: 'npm test' })).behavior, 'ask');
    assert.equal((await untrusted.decide(bash, { command: 'make all' })).behavior, 'allow');
    const edit = editTool() as unknown as Tool;
    assert.equal((await untrusted.decide(edit, { file_path: 'dist/a.js' })).behavior, 'deny');
    const { problems } = (await untrusted.current()).loaded;
    assert.ok(problems.some((p) => p.message.includes('Bash(npm test:*) is ignored: the workspace is not trusted')));
  });

  it('a file that is not JSON and a bad rule are reported; everything else loads', async () => {
    const { dataDir, project, projectFile } = folders();
    writeJson(path.join(dataDir, 'settings.json'), '{"permissions": {"allow": [');
    writeJson(projectFile, { permissions: { allow: ['Bash(npm test', 42, 'Read'], deny: 'Bash' } });
    const loaded = await loadRuleFiles({ dataDir, projectRoot: project, trusted: true, settings: NO_SETTINGS });
    assert.deepEqual(
      loaded.rules.map((r) => r.text),
      ['Read'],
    );
    const messages = loaded.problems.map((p) => `${path.basename(p.file ?? '')}: ${p.message}`);
    assert.equal(messages.length, 4, messages.join('\n'));
    assert.match(messages[0], /^settings\.json: is not valid JSON/);
    assert.ok(messages.some((m) => m.includes('"permissions.deny" must be a list')));
    assert.ok(messages.some((m) => m.includes('must end with ")"')));
    assert.ok(messages.some((m) => m.includes('42 is not a string')));
  });

  it('rules are read again when a file or the settings change', async () => {
    const { dataDir, project, projectFile } = folders();
    let settings = { allow: ['Bash(make:*)'], deny: [] as string[] };
    const book = new RuleBook({ dataDir, projectRoot: project, trusted: true, settings: () => settings });
    assert.equal((await book.decide(bash, { command: 'make' })).behavior, 'allow');
    settings = { allow: [], deny: ['Bash(make:*)'] };
    assert.equal((await book.decide(bash, { command: 'make' })).behavior, 'deny');
    assert.equal((await book.decide(bash, { command: 'npm test' })).behavior, 'ask');
    writeJson(projectFile, { permissions: { allow: ['Bash(npm test)'] } });
    assert.equal((await book.decide(bash, { command: 'npm test' })).behavior, 'allow');
    writeJson(projectFile, { permissions: { deny: ['Bash(npm test)'] } });
    assert.equal((await book.decide(bash, { command: 'npm test' })).behavior, 'deny');
  });

  it('announces the project rules once, again after they change, and not when the file is gone', async () => {
    const { dataDir, project, projectFile } = folders();
    const book = new RuleBook({ dataDir, projectRoot: project, trusted: true, settings: () => NO_SETTINGS });
    assert.equal(await book.projectNews(), undefined);
    writeJson(projectFile, { permissions: { allow: ['Bash(npm test:*)'], deny: ['Bash(git push:*)'] } });
    const first = await book.projectNews();
    assert.deepEqual(
      first?.rules.map((r) => `${r.behavior} ${r.text}`),
      ['deny Bash(git push:*)', 'allow Bash(npm test:*)'],
    );
    assert.equal(first?.file, projectFile);
    assert.equal(await book.projectNews(), undefined);
    const another = new RuleBook({ dataDir, projectRoot: project, trusted: true, settings: () => NO_SETTINGS });
    assert.equal(await another.projectNews(), undefined, 'the fingerprint is kept under the data dir');
    writeJson(projectFile, { permissions: { allow: ['Bash(npm test:*)', 'Edit(src/**)'] } });
    assert.deepEqual(
      (await book.projectNews())?.rules.map((r) => r.text),
      ['Bash(npm test:*)', 'Edit(src/**)'],
    );
    const untrusted = new RuleBook({ dataDir, projectRoot: project, trusted: false, settings: () => NO_SETTINGS });
    writeJson(projectFile, { permissions: { allow: ['Bash'] } });
    assert.equal(await untrusted.projectNews(), undefined);
    fs.rmSync(projectFile);
    assert.equal(await book.projectNews(), undefined);
  });
});

describe('the rules in force (for the inspector and engram -p)', () => {
  it('lists each rule with its source and file, the problems, and the rules no tool answers to yet', async () => {
    const { dataDir, project, projectFile } = folders();
    writeJson(projectFile, {
      permissions: { allow: ['mcp__github', 'WebFetch', 'Bash(npm test:*)'], deny: ['Bash('] },
    });
    const inForce = await permissionRulesInForce(
      { dataDir, projectRoot: project, trusted: true, settings: { allow: [], deny: ['Read(.env)'] } },
      [bash, editTool() as unknown as Tool],
    );
    assert.deepEqual(
      inForce.rules.map((r) => `${r.behavior} ${r.text} ${r.source} ${r.file ?? '-'}`),
      [
        'deny Read(.env) user -',
        `allow mcp__github project ${projectFile}`,
        `allow WebFetch project ${projectFile}`,
        `allow Bash(npm test:*) project ${projectFile}`,
      ],
    );
    assert.deepEqual(
      inForce.unmatched.map((r) => r.text),
      ['Read(.env)', 'mcp__github', 'WebFetch'],
    );
    assert.equal(inForce.problems.length, 1);
    assert.match(inForce.problems[0].message, /deny rule skipped: "Bash\(" must end with "\)"/);
    assert.equal(inForce.decide(bash, { command: 'npm test' }).behavior, 'allow');
  });
});

describe('SessionPermissions with rules', () => {
  it('a deny rule refuses without asking and names the rule and its file; an allow rule runs without asking', async () => {
    const { dataDir, project, projectFile } = folders();
    writeJson(projectFile, { permissions: { allow: ['Bash(npm test:*)'], deny: ['Bash(git push:*)'] } });
    const p = prompt([]);
    const permissions = new SessionPermissions(p);
    permissions.useRules(new RuleBook({ dataDir, projectRoot: project, trusted: true, settings: () => NO_SETTINGS }));
    const denied = await permissions.gate(bash, { command: 'npm test && git push' }, call());
    assert.equal(denied.allow, false);
    assert.match(
      (denied as { reason: string }).reason,
      new RegExp(`^Denied by the permission rule Bash\\(git push:\\*\\) \\(project settings, ${projectFile}\\)`),
    );
    assert.deepEqual(await permissions.gate(bash, { command: 'npm test -- --watch' }, call()), { allow: true });
    assert.equal(p.asked.length, 0);
  });

  it('"Always allow" saves the suggested rule in .engram/settings.local.json (+ .gitignore); the next call runs', async () => {
    const { dataDir, project } = folders();
    const p = prompt(['allowAlways']);
    const permissions = new SessionPermissions(p);
    permissions.useRules(new RuleBook({ dataDir, projectRoot: project, trusted: true, settings: () => NO_SETTINGS }));
    const saved: unknown[] = [];
    permissions.onRuleSaved((s) => saved.push(s));
    assert.deepEqual(await permissions.gate(bash, { command: 'npm test -- a' }, call()), { allow: true });
    assert.equal(p.asked[0].suggestedRule, 'Bash(npm test:*)');
    const local = path.join(project, '.engram', 'settings.local.json');
    assert.deepEqual(JSON.parse(fs.readFileSync(local, 'utf8')), { permissions: { allow: ['Bash(npm test:*)'] } });
    assert.equal(fs.readFileSync(path.join(project, '.engram', '.gitignore'), 'utf8'), 'settings.local.json\n');
    assert.deepEqual(saved, [{ rule: 'Bash(npm test:*)', file: local }]);
    assert.deepEqual(await permissions.gate(bash, { command: 'npm test -- b' }, call()), { allow: true });
    assert.equal(p.asked.length, 1, 'the saved rule answered the second call');
    assert.deepEqual(
      fs.readdirSync(path.join(project, '.engram')).sort(),
      ['.gitignore', 'settings.local.json'],
      'no temp file is left',
    );
  });

  it('keeps other keys and an existing .gitignore, and never overwrites a local file it cannot read', async () => {
    const { dataDir, project } = folders();
    const local = path.join(project, '.engram', 'settings.local.json');
    writeJson(local, { model: 'x', permissions: { allow: ['Read'], deny: ['Bash(rm:*)'] } });
    fs.writeFileSync(path.join(project, '.engram', '.gitignore'), 'mine\n');
    const book = new RuleBook({ dataDir, projectRoot: project, trusted: true, settings: () => NO_SETTINGS });
    await book.allowAlways('Edit(src/**)');
    assert.deepEqual(JSON.parse(fs.readFileSync(local, 'utf8')), {
      model: 'x',
      permissions: { allow: ['Read', 'Edit(src/**)'], deny: ['Bash(rm:*)'] },
    });
    assert.equal(fs.readFileSync(path.join(project, '.engram', '.gitignore'), 'utf8'), 'mine\n');
    fs.writeFileSync(local, '{ broken');
    await assert.rejects(
      book.allowAlways('Bash'),
      /Could not add Bash to .*settings\.local\.json: .*Fix or remove the file/,
    );
    assert.equal(fs.readFileSync(local, 'utf8'), '{ broken');
  });
});

describe('permission rules and symlinks', () => {
  it('a deny rule follows a link into what it denies; an allow rule does not follow a link out', async () => {
    const { dataDir, project, projectFile } = folders();
    const outside = tempDir('engram-outside-');
    fs.mkdirSync(path.join(project, 'secrets'));
    fs.mkdirSync(path.join(project, 'src'));
    fs.symlinkSync(path.join(project, 'secrets'), path.join(project, 'docs'));
    fs.symlinkSync(outside, path.join(project, 'src', 'out'));
    writeJson(projectFile, { permissions: { allow: ['Edit(src/**)', 'Read'], deny: ['Read(secrets/**)'] } });
    const book = new RuleBook({ dataDir, projectRoot: project, trusted: true, settings: () => NO_SETTINGS });
    const read = readTool() as unknown as Tool;
    const edit = editTool() as unknown as Tool;
    assert.equal((await book.decide(read, { file_path: 'docs/key.pem' })).behavior, 'deny');
    assert.equal((await book.decide(read, { file_path: 'README.md' })).behavior, 'allow');
    assert.equal((await book.decide(edit, { file_path: 'src/a.ts' })).behavior, 'allow');
    assert.equal((await book.decide(edit, { file_path: 'src/out/a.ts' })).behavior, 'ask');
  });
});
