// A memory the main agent saves in a turn that then compacts (the summary replaces the message with
// the Write call) is still indexed and stamped with the session it came from (issue 13, class 6).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../../src/core/llm/anthropicClient';
import { parseTopicFile } from '../../../../src/core/memory/autoMemory/topicFile';
import { openEngramSession } from '../../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../../src/core/settings/settingsStore';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
const usage = (input: number) => ({
  input_tokens: input,
  output_tokens: 10,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

describe('a memory saved in a turn that compacts', () => {
  it('is indexed and keeps its originSessionId', async () => {
    const cwd = tempDir('engram-wc-ws-');
    const session = await openEngramSession(
      {
        dataDir: tempDir('engram-wc-data-'),
        cwd,
        client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
        trusted: true,
        permissionPrompt: { ask: async () => 'allowOnce' },
        version: '0.0.0-test',
        entrypoint: 'test',
      },
      new SettingsStore({ contextWindow: 8_000, 'sessionNotes.enabled': false, 'memory.extraction.enabled': false }),
    );
    const dir = session.memoryDir!;
    const topic = path.join(dir, 'user_tabs.md');
    server.enqueue(
      // The Write's response reports a full window: the next call compacts first, with a summary.
      {
        content: [
          {
            type: 'tool_use',
            name: 'Write',
            input: {
              file_path: topic,
              content:
                '---\nname: Tabs\ndescription: the user indents with tabs\ntype: user\n---\n\nThe user prefers tabs.\n',
            },
          },
        ],
        usage: usage(7_990),
      },
      {
        content: [
          {
            type: 'text',
            text: '<analysis>a</analysis>\n<summary>\n1. Primary Request and Intent: remember that the user prefers tabs.\n2. Current Work: saved user_tabs.md.\n</summary>',
          },
        ],
      },
      { content: [{ type: 'text', text: 'Saved: you prefer tabs.' }], usage: usage(1_000) },
    );
    const r = await session.runTurn('Remember that I prefer tabs.');
    assert.equal(r.reason, 'end_turn');
    assert.ok(session.compaction.events.length >= 1, 'the turn compacted');
    const index = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
    assert.match(index, /\(user_tabs\.md\)/);
    const parsed = parseTopicFile(fs.readFileSync(topic));
    assert.ok(!parsed.binary && parsed.data.originSessionId === session.sessionId);
    await session.finish();
  });
});
