// The inspector's requests are checked like the chat's: the webview is untrusted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INSPECTOR_TO_HOST_SHAPES, parseMessage, type InspectorToHost } from '../../../src/protocol/messages';

test('inspector requests parse; bad groups, missing fields and extra fields are refused', () => {
  const good: InspectorToHost[] = [
    { type: 'pruneEntry', group: 'private', file: 'a.md' },
    { type: 'restoreEntry', group: 'team', trashId: '20260101T000000000Z-abcdef' },
    { type: 'openOrigin', sessionId: 's1' },
    { type: 'openOrigin', sessionId: 's1', messageId: 'u1' },
    { type: 'compactionDetails', requestId: 'r1', id: 'evt-1' },
    { type: 'pickSource' },
    { type: 'mcpApprove', server: 'everything' },
    { type: 'mcpSetTool', server: 'everything', tool: 'echo', on: false },
  ];
  for (const m of good) assert.deepEqual(parseMessage(m, INSPECTOR_TO_HOST_SHAPES), { ok: true, message: m });
  const bad: unknown[] = [
    { type: 'pruneEntry', group: 'everyone', file: 'a.md' },
    { type: 'pruneEntry', file: 'a.md' },
    { type: 'deleteTrash', group: 'private', trashId: 'x', force: true },
    { type: 'openOrigin', sessionId: 's1', messageId: 42 },
    { type: 'openFile' },
    { type: 'send', text: 'x' },
    { type: 'mcpSetServer', server: 'everything', on: 'yes' },
    { type: 'mcpRestart', server: 'everything', command: 'rm -rf /' },
  ];
  for (const m of bad) assert.equal(parseMessage(m, INSPECTOR_TO_HOST_SHAPES).ok, false, JSON.stringify(m));
});
