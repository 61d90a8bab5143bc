import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { lastMessageTime } from '../../../src/core/conversation/lastMessageTime';
import { listSessions } from '../../../src/core/conversation/transcriptReader';
import { useTempDirs } from '../support/tempDirs';

// "Earlier sessions" shows when a session was last used: its last message's time, not the file's mtime
// (a copy or a backup moves the mtime; the chat then showed and sorted by the wrong date).
const tempDir = useTempDirs();

function line(type: string, timestamp: string, text = 'hi'): string {
  const message =
    type === 'user' ? { role: 'user', content: text } : { role: 'assistant', content: [{ type: 'text', text }] };
  return JSON.stringify({ type, uuid: `${type}-${timestamp}`, parentUuid: null, sessionId: 's', timestamp, message });
}

function transcript(dir: string, name: string, lines: string[], mtime: Date): string {
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, lines.join('\n'));
  fs.utimesSync(file, mtime, mtime);
  return file;
}

describe('last message time', () => {
  it("is the last user or assistant line's timestamp, whatever the mtime, past a torn line and a long one", async () => {
    const dir = tempDir();
    const old = new Date('2020-01-02T03:04:05Z');
    const plain = transcript(
      dir,
      'a',
      [
        line('user', '2026-05-01T10:00:00.000Z'),
        line('assistant', '2026-05-01T10:00:05.000Z'),
        '{"type":"summary","summary":"x"}',
        '',
      ],
      old,
    );
    assert.equal((await lastMessageTime(plain))?.toISOString(), '2026-05-01T10:00:05.000Z');
    const torn = transcript(dir, 'b', [line('user', '2026-05-02T10:00:00.000Z'), '{"type":"assistant","timestam'], old);
    assert.equal((await lastMessageTime(torn))?.toISOString(), '2026-05-02T10:00:00.000Z');
    // A last line far longer than the first window read from the end.
    const long = transcript(
      dir,
      'c',
      [
        line('user', '2026-05-03T10:00:00.000Z'),
        line('assistant', '2026-05-03T10:01:00.000Z', 'x'.repeat(300_000)),
        '',
      ],
      old,
    );
    assert.equal((await lastMessageTime(long))?.toISOString(), '2026-05-03T10:01:00.000Z');
    const none = transcript(dir, 'd', ['{"type":"summary","summary":"x"}'], old);
    assert.equal(await lastMessageTime(none), undefined);
  });

  it('listSessions gives it and sorts by it, the mtime only standing in when a file has none', async () => {
    const dir = tempDir();
    transcript(dir, 'touched-lately', [line('user', '2026-01-01T00:00:00.000Z')], new Date('2026-12-01T00:00:00Z'));
    transcript(dir, 'used-lately', [line('user', '2026-06-01T00:00:00.000Z')], new Date('2020-01-01T00:00:00Z'));
    transcript(dir, 'no-messages', ['{"type":"summary","summary":"x"}'], new Date('2026-03-01T00:00:00Z'));
    const sessions = await listSessions(dir);
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.lastMessageAt?.toISOString()]),
      [
        ['used-lately', '2026-06-01T00:00:00.000Z'],
        ['no-messages', undefined],
        ['touched-lately', '2026-01-01T00:00:00.000Z'],
      ],
    );
  });
});
