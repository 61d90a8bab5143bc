// A session as the Chat view opens it follows the permission rules: the project's rules are announced
// in the chat once (and again after they change), a deny rule refuses a call with the rule's name, an
// "Always allow" click saves a rule and says so, and the next such call runs without a card.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { PermissionRequest } from '../../../src/core/ports';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import type { SessionEvent } from '../../../src/core/session/sessionEvents';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();

describe('session permission rules', () => {
  it('announces project rules once, denies by rule, and saves Always allow', async () => {
    const cwd = tempDir('engram-rules-ws-');
    const dataDir = tempDir('engram-rules-data-');
    const projectFile = path.join(cwd, '.engram', 'settings.json');
    fs.mkdirSync(path.dirname(projectFile));
    fs.writeFileSync(projectFile, JSON.stringify({ permissions: { deny: ['Bash(git push:*)'] } }));
    const asked: PermissionRequest[] = [];
    const session = await openEngramSession(
      {
        cwd,
        dataDir,
        client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
        trusted: true,
        permissionPrompt: { ask: async (r) => (asked.push(r), 'allowAlways') },
        version: '0.0.0-test',
        entrypoint: 'test',
      },
      new SettingsStore({ 'memory.enabled': false }),
    );
    const notices: string[] = [];
    session.on((e: SessionEvent) => {
      if (e.type === 'notice') notices.push(e.text);
    });
    try {
      const bash = (command: string) => ({ type: 'tool_use' as const, name: 'Bash', input: { command } });
      server.enqueue(
        { content: [bash('git push origin'), bash('touch one.txt')] },
        { content: [{ type: 'text', text: 'ok' }] },
        { content: [bash('touch two.txt')] },
        { content: [{ type: 'text', text: 'ok' }] },
      );
      const first = server.requests.length;
      await session.runTurn('go');
      const results = server.requests[first + 1].body.messages.at(-1)?.content as Array<{ content: string }>;
      assert.match(results[0].content, /^Denied by the permission rule Bash\(git push:\*\) \(project settings/);
      assert.ok(fs.existsSync(path.join(cwd, 'one.txt')));
      assert.deepEqual(
        asked.map((r) => r.suggestedRule),
        ['Bash(touch one.txt)'],
      );
      const local = path.join(cwd, '.engram', 'settings.local.json');
      assert.deepEqual(JSON.parse(fs.readFileSync(local, 'utf8')).permissions.allow, ['Bash(touch one.txt)']);
      assert.deepEqual(notices, [
        'The project settings add permission rules. Allow: -. Deny: Bash(git push:*).',
        'Saved the permission rule Bash(touch one.txt): such calls now run without asking.',
      ]);

      // The saved rule is exact: `touch two.txt` asks again, and nothing is announced twice.
      await session.runTurn('again');
      assert.equal(asked.length, 2);
      assert.equal(notices.length, 3);

      fs.writeFileSync(projectFile, JSON.stringify({ permissions: { allow: ['Bash(npm test:*)'] } }));
      server.enqueue({ content: [{ type: 'text', text: 'ok' }] });
      await session.runTurn('and again');
      assert.equal(notices.at(-1), 'The project settings add permission rules. Allow: Bash(npm test:*). Deny: -.');
    } finally {
      await session.finish();
    }
  });
});
