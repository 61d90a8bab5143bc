// MCP results in the memory engine like any other tool result: a repeated MCP output goes to the model as
// a note naming the earlier call, microcompact trims old MCP results (and their images), and a
// compaction's `dropped` list names the paths an MCP call worked on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { droppedFacts } from '../../../src/core/compaction/droppedFacts';
import { isTrimmed, microcompact } from '../../../src/core/compaction/microcompact';
import { REPEAT_NOTE_PREFIX } from '../../../src/core/conversation/repeatedResults';
import type { ApiMessage, ToolResultBlock } from '../../../src/core/conversation/types';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';
import { entry, EVERYTHING, makeHub, tempDir, openHubSession } from './mcpTestSupport';

const LONG = `${'a repeated MCP answer '.repeat(60)}end`;

function results(messages: readonly ApiMessage[]): ToolResultBlock[] {
  return messages
    .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
    .filter((b) => b.type === 'tool_result');
}

describe('MCP results in the memory engine', () => {
  it('sends a repeated MCP output as a note, and microcompact trims old MCP results and images', async () => {
    const root = fs.realpathSync(tempDir('fit'));
    const cwd = path.join(root, 'ws');
    fs.mkdirSync(cwd, { recursive: true });
    const server = await startTestServer();
    const t = makeHub([
      entry('everything', { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} }),
    ]);
    try {
      const session = await openHubSession(t.hub, server.url, root, { prompt: { ask: async () => 'allowSession' } });
      await t.hub.whenSettled();
      const use = (id: string, name: string, input: Record<string, unknown>) => ({
        content: [{ type: 'tool_use' as const, id, name, input }],
      });
      server.enqueue(
        use('toolu_01ECHO1AAAAAAAAAAAAAAAAA', 'mcp__everything__echo', { message: LONG }),
        use('toolu_01IMAGEAAAAAAAAAAAAAAAAA', 'mcp__everything__get-tiny-image', {}),
        use('toolu_01ECHO2AAAAAAAAAAAAAAAAA', 'mcp__everything__echo', { message: LONG }),
        { content: [{ type: 'text', text: 'Done.' }] },
      );
      const r = await session.runTurn('Echo it twice.');
      assert.equal(r.reason, 'end_turn', JSON.stringify(r.error));

      const sent = server.requests.at(-1)?.body.messages as ApiMessage[];
      const note = results(sent).at(-1)?.content;
      assert.equal(typeof note, 'string');
      const text = String(note);
      assert.ok(text.startsWith(REPEAT_NOTE_PREFIX), text);
      assert.match(text, /mcp__everything__echo call \(everything · echo .*\), id toolu_01ECHO1/);

      const cut = microcompact(session.agent.messages, { keepRecent: 1, maxChars: 100 });
      assert.deepEqual(cut.trimmedToolUseIds, ['toolu_01ECHO1AAAAAAAAAAAAAAAAA', 'toolu_01IMAGEAAAAAAAAAAAAAAAAA']);
      assert.equal(cut.imagesRemoved, 1);
      const [echo, image] = results(cut.messages);
      assert.ok(isTrimmed(echo));
      assert.match(JSON.stringify(image.content), /Image removed to save context \(image\/png/);
      session.dispose();
    } finally {
      await t.hub.close();
      await server.close();
    }
  });

  it('lists the paths an MCP call named among what a compaction dropped', () => {
    const replaced: ApiMessage[] = [
      { role: 'user', content: 'read the note' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'mcp__files__read_text_file', input: { path: '/p/docs/note.txt' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true }] },
    ];
    const dropped = droppedFacts(replaced, [{ role: 'user', content: 'A summary that names nothing.' }]);
    assert.deepEqual(dropped.paths, ['/p/docs/note.txt']);
    assert.deepEqual(dropped.errors, ['boom']);
  });
});
