import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalise, normaliseWithIds } from '../../../src/core/conversation/normalise';
import { Conversation } from '../../../src/core/conversation/session';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import { openSessionTranscript } from '../../../src/core/conversation/transcriptWriter';
import { validate, withTempDir } from './testSupport';

const usage = { input_tokens: 10, output_tokens: 5 };

test('Conversation keeps the API messages in step with the transcript it writes', async () => {
  await withTempDir(async (dir) => {
    const writer = openSessionTranscript({ dataDir: dir, projectPath: '/p', sessionId: 's', version: '0.1.0' });
    const c = new Conversation(writer);
    await c.addUserPrompt('list files');
    await c.addAssistantBlock({ id: 'm1', model: 'x', stopReason: null, usage }, { type: 'text', text: 'Listing.' });
    await c.addAssistantBlock({ id: 'm1', model: 'x', stopReason: 'tool_use', usage }, { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } });
    await c.addToolResults([{ block: { type: 'tool_result', tool_use_id: 't1', content: 'a.txt' }, toolUseResult: { stdout: 'a.txt' } }]);
    await c.addAssistantBlock({ id: 'm2', model: 'x', stopReason: 'end_turn', usage }, { type: 'text', text: 'One file.' });
    assert.equal(validate([...c.messages]), null);
    assert.equal(c.messages.length, 4);
    assert.equal(c.lineUuidsOf(1).length, 2);

    // What a resumed session reads back is what the live one held.
    const { lines } = await readTranscript(writer.file);
    assert.deepEqual(normalise(lines), c.messages);
    const { entries } = normaliseWithIds(lines);
    assert.deepEqual(entries.map((e) => e.uuids), c.messages.map((_, i) => [...c.lineUuidsOf(i)]));

    const resumed = new Conversation(undefined, entries);
    assert.deepEqual(resumed.messages, c.messages);
    resumed.replaceAll(entries.slice(2));
    assert.equal(resumed.messages.length, 2);
  });
});
