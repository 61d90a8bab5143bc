import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapCallResult } from '../../../src/core/mcp/mcpResult';
import { mcpStartPolicy, readMcpChoices, updateMcpChoices } from '../../../src/core/mcp/projectChoices';
import { checkInputSchema } from '../../../src/core/mcp/toolDefinition';
import { mcpToolName, parseMcpRuleName } from '../../../src/core/mcp/toolNames';
import type { McpServerEntry } from '../../../src/core/mcp/types';
import { tempDir } from './mcpTestSupport';

describe('MCP tool names', () => {
  it('builds mcp__<server>__<tool>, sanitized and capped with a hash', () => {
    assert.equal(mcpToolName('github', 'create_issue'), 'mcp__github__create_issue');
    assert.equal(mcpToolName('my.server', 'do thing/now'), 'mcp__my_server__do_thing_now');
    const a = mcpToolName('s', 'a'.repeat(100));
    const b = mcpToolName('s', `${'a'.repeat(99)}b`);
    assert.equal(a.length, 64);
    assert.notEqual(a, b);
    assert.equal(mcpToolName('s', 'a'.repeat(100)), a, 'stable');
  });

  it('parses rule names for a server or one tool', () => {
    assert.deepEqual(parseMcpRuleName('mcp__github'), { server: 'github' });
    assert.deepEqual(parseMcpRuleName('mcp__github__create_issue'), { server: 'github', tool: 'create_issue' });
    assert.deepEqual(parseMcpRuleName('mcp__github__'), { server: 'github' });
    assert.equal(parseMcpRuleName('Bash'), undefined);
    assert.equal(parseMcpRuleName('mcp__'), undefined);
  });
});

describe('MCP input schema checks', () => {
  it('adds type object, keeps good schemas and refuses what the API rejects', () => {
    assert.deepEqual(checkInputSchema(undefined), { type: 'object', properties: {} });
    assert.deepEqual(checkInputSchema({ properties: {} }), { type: 'object', properties: {} });
    assert.match(String(checkInputSchema({ type: 'array' })), /takes only "object"/);
    assert.match(String(checkInputSchema({ type: 'object', anyOf: [] })), /"anyOf" at the top level/);
    assert.match(String(checkInputSchema([1])), /not a JSON object/);
    const huge = { type: 'object', properties: { a: { description: 'x'.repeat(70_000) } } };
    assert.match(String(checkInputSchema(huge)), /over the 64 KB allowed/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    assert.match(String(checkInputSchema(cyclic)), /cannot be written as JSON/);
  });
});

describe('MCP results', () => {
  it('maps audio, blobs, embedded text, unknown blocks, odd images and isError', () => {
    const r = mapCallResult({
      isError: true,
      content: [
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'embedded text' } },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA', mimeType: 'application/zip' } },
        { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
        { type: 'thing' },
      ],
    });
    assert.equal(r.isError, true);
    assert.equal(r.blocks, undefined);
    assert.match(r.content, /\[audio \(audio\/wav, 3 bytes\) not shown/);
    assert.match(r.content, /embedded text/);
    assert.match(r.content, /file:\/\/\/a\.bin \(application\/zip, 3 bytes\) is binary/);
    assert.match(r.content, /image of type image\/tiff left out/);
    assert.match(r.content, /type "thing" is not shown/);
  });

  it('adds structuredContent as JSON when no text says the same', () => {
    assert.equal(mapCallResult({ content: [], structuredContent: { n: 1 } }).content, '{"n":1}');
    assert.equal(
      mapCallResult({ content: [{ type: 'text', text: '{ "n": 1 }' }], structuredContent: { n: 1 } }).content,
      '{ "n": 1 }',
    );
  });

  it('cuts long output at the token cap, keeping images', () => {
    const r = mapCallResult(
      {
        content: [
          { type: 'text', text: 'word '.repeat(10_000) },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        ],
      },
      1000,
    );
    assert.ok(r.content.length < 4100 + 300);
    assert.match(r.content, /\[Output cut at about 1,000 tokens/);
    assert.equal(r.blocks?.filter((b) => b.type === 'image').length, 1);
  });
});

describe('MCP project choices and the start rule', () => {
  const entry = (source: McpServerEntry['source'], fingerprint = 'f1'): McpServerEntry => ({
    name: 'srv',
    source,
    fingerprint,
    transport: { type: 'stdio', command: 'node', args: [], env: {} },
  });

  it('keeps approvals per project and revokes them when the entry changes', async () => {
    const dataDir = tempDir('choices');
    const project = '/some/project';
    assert.deepEqual(await readMcpChoices(dataDir, project), { approved: {}, disabledServers: [], disabledTools: [] });
    await updateMcpChoices(dataDir, project, (c) => ({ ...c, approved: { srv: 'f1' } }));
    const choices = await readMcpChoices(dataDir, project);
    assert.deepEqual(choices.approved, { srv: 'f1' });
    assert.deepEqual((await readMcpChoices(dataDir, '/other')).approved, {});
    const policy = mcpStartPolicy({ trusted: true, choices, approvedNames: [] });
    assert.equal(policy(entry('project')), true);
    assert.equal(policy(entry('project', 'f2')), 'needsApproval');
    assert.equal(policy(entry('vscode', 'f2')), 'needsApproval');
    assert.equal(policy(entry('user', 'f2')), true);
    assert.equal(mcpStartPolicy({ trusted: true, choices, approvedNames: ['srv'] })(entry('project', 'f2')), true);
    assert.equal(mcpStartPolicy({ trusted: false, choices, approvedNames: ['srv'] })(entry('project')), 'untrusted');
    const off = { ...choices, disabledServers: ['srv'] };
    assert.equal(mcpStartPolicy({ trusted: true, choices: off, approvedNames: [] })(entry('user')), 'disabled');
  });
});
