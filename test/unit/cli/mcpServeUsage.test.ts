// `engram mcp`'s command line: its help names the tools and how to add it to a client, and what cannot
// be served is a usage error (exit 2) with the reason, before any protocol starts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { runEngramInProcess } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('each');

it('prints its help with the tools, and is listed in engram --help', async () => {
  const cwd = tempDir('engram-mcp-usage-');
  const help = await runEngramInProcess(['mcp', '--help'], { cwd, env: {} });
  assert.equal(help.code, 0);
  for (const tool of ['search_memory', 'remember', 'list_memories', 'read_memory', 'read_session_notes'])
    assert.ok(help.stdout.includes(tool), tool);
  assert.match(help.stdout, /claude mcp add engram -- engram mcp/);
  const overall = await runEngramInProcess(['--help'], { cwd, env: {} });
  assert.match(overall.stdout, /^ {2}mcp +Serve this project's memory to other agents over MCP \(stdio\)\.$/m);
});

it('refuses a missing folder, a stray argument and settings that turn memory off', async () => {
  const cwd = tempDir('engram-mcp-usage-');
  fs.writeFileSync(path.join(cwd, 'off.json'), '{"engram.memory.enabled": false}');
  for (const [args, reason] of [
    [['--cwd', path.join(cwd, 'nope')], /--cwd .*nope is not a folder/],
    [['serve'], /Unexpected argument: serve/],
    [['--settings', 'off.json'], /--settings off\.json turns memory off/],
    [['--port', '3000'], /Unknown option '--port'/],
  ] as const) {
    const r = await runEngramInProcess(['mcp', ...args], { cwd, env: {} });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, reason);
    assert.equal(r.stdout, '', 'nothing on stdout, where protocol messages would go');
  }
});
