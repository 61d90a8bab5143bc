// The permission card of an MCP call and its "Always allow": what the bridge puts on the card, and the
// answer it hands back when the person clicks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatItemsModel } from '../../../../src/vscode/chat/chatItemsModel';
import { PermissionBridge } from '../../../../src/vscode/chat/permissionBridge';

test('an MCP call names its server and tool, shows its arguments, and "Always allow" answers allowAlways', async () => {
  let shown!: () => void;
  const posted = new Promise<void>((resolve) => (shown = resolve));
  const items = new ChatItemsModel((m) => {
    if (m.type === 'item' && m.item.kind === 'permission') shown();
  });
  const bridge = new PermissionBridge(items, () => '/tmp');
  const input = { title: 'Crash on <start>', body: 'x'.repeat(30_000) };
  const answer = bridge.ask(
    {
      toolName: 'mcp__github__create_issue',
      toolUseId: 't1',
      summary: 'github · create_issue',
      input,
      mcp: { server: 'github', tool: 'create_issue' },
      suggestedRule: 'mcp__github__create_issue',
    },
    new AbortController().signal,
  );
  await posted;
  const item = items.find('perm-t1');
  assert.ok(item?.kind === 'permission');
  assert.equal(item.suggestedRule, 'mcp__github__create_issue');
  assert.equal(item.mcp?.server, 'github');
  assert.equal(item.mcp?.tool, 'create_issue');
  assert.match(item.mcp?.args ?? '', /^\{\n {2}"title": "Crash on <start>",/);
  assert.ok((item.mcp?.args.length ?? 0) < 25_000, 'long arguments are clipped like other tool text');
  assert.match(item.mcp?.args ?? '', /more characters\)$/);
  bridge.answer('perm-t1', 'allowAlways');
  assert.equal(await answer, 'allowAlways');
  const answered = items.find('perm-t1');
  assert.equal(answered?.kind === 'permission' && answered.answered, 'allowAlways');
});
