// A session searches with the engine and bounds its host gives (SessionSetup.search): the model's Grep runs
// on ripgrep with the host's file size limit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ripgrepSearchEngine } from '../../../../src/core/tools/search/ripgrepEngine';
import type { SearchEngine } from '../../../../src/core/tools/searchTypes';
import { startSession, toolResults } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';
import { testRgPath } from './engines';

const server = useTestServer();
const tempDir = useTempDirs();

describe('a session’s search', () => {
  it('runs the model’s Grep on the host’s engine within the host’s bounds', async () => {
    const workspace = tempDir('engram-ws-');
    fs.writeFileSync(path.join(workspace, 'small.txt'), 'needle\n');
    fs.writeFileSync(path.join(workspace, 'large.txt'), `needle\n${'x'.repeat(200)}\n`);
    const rg = ripgrepSearchEngine(testRgPath(), 'test');
    let grepCalls = 0;
    const counting: SearchEngine = { ...rg, grep: (q, s) => (grepCalls++, rg.grep(q, s)) };
    const maxFileBytes = 100;
    server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_g', name: 'Grep', input: { pattern: 'needle' } }] },
      { content: [{ type: 'text', text: 'found' }] },
    );
    const { session } = await startSession(server, {
      workspace,
      dataDir: tempDir('engram-data-'),
      search: { engine: counting, bounds: () => ({ maxFileBytes }) },
    });
    await session.agent.runTurn('find the needle');
    const [result] = toolResults(session.agent.messages, 2);
    assert.equal(grepCalls, 1);
    assert.match(String(JSON.stringify(result.content)), /small\.txt\\n\[1 file over 100 bytes not searched: large\.txt/);
  });
});
