// The chat basics' logic outside VS Code: per-turn tokens, dropping the last prompt for retry and edit,
// the local slash commands, and @ mentions (which words name files, ranking, the attached block).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatItem, HostToChat } from '../../../../src/protocol/messages';
import { itemsFromMessages, turnTokens } from '../../../../src/vscode/chat/chatItems';
import { ChatItemsModel } from '../../../../src/vscode/chat/chatItemsModel';
import {
  fileAttachmentText,
  isFileAttachment,
  MAX_ATTACHED_CHARS,
  mentionedPaths,
} from '../../../../src/vscode/chat/fileMentions';
import { runSlashCommand, type SlashHost } from '../../../../src/vscode/chat/slashCommands';

const usage = { input_tokens: 120, output_tokens: 40, cache_read_input_tokens: 800, cache_creation_input_tokens: 80 };

describe('per-turn tokens', () => {
  it('a turn that called the model ends with its tokens; one that did not, without', () => {
    const posted: HostToChat[] = [];
    const model = new ChatItemsModel((m) => posted.push(m));
    model.user('hi');
    model.onAgentEvent({ type: 'turnEnd', reason: 'end_turn', text: 'hello', usage, modelCalls: 2 });
    model.onAgentEvent({
      type: 'turnEnd',
      reason: 'error',
      text: '',
      usage: { input_tokens: 0, output_tokens: 0 },
      modelCalls: 0,
    });
    const turns = model.items.filter((i): i is Extract<ChatItem, { kind: 'turn' }> => i.kind === 'turn');
    assert.deepEqual(
      turns.map((t) => t.tokens),
      [{ input: 120, cacheRead: 800, cacheWrite: 80, output: 40 }, undefined],
    );
    assert.deepEqual(turnTokens({ input_tokens: 5, output_tokens: 1 }), {
      input: 5,
      cacheRead: 0,
      cacheWrite: 0,
      output: 1,
    });
  });

  it('turn-end notices go through the translation it is given', () => {
    const model = new ChatItemsModel(
      () => undefined,
      (m) => `zh:${m}`,
    );
    model.onAgentEvent({ type: 'turnEnd', reason: 'cancelled', text: '', usage, modelCalls: 1 });
    const notice = model.items.find((i) => i.kind === 'notice');
    assert.equal(notice?.kind === 'notice' && notice.text, 'zh:Stopped.');
  });
});

describe('notices that say how things stand', () => {
  it('a new one drops the earlier ones with its action and keeps the rest', () => {
    const model = new ChatItemsModel(() => undefined);
    model.notice('info', '1 memory waits for review.', 'reviewMemories');
    model.user('next');
    model.notice('info', 'Session notes updated.');
    assert.equal(model.dropNotices('reviewMemories'), true);
    model.notice('info', '2 memories wait for review.', 'reviewMemories');
    assert.deepEqual(
      model.items.map((i) => (i.kind === 'notice' ? i.text : i.kind)),
      ['user', 'Session notes updated.', '2 memories wait for review.'],
    );
    assert.equal(model.dropNotices('nothing'), false);
    assert.equal(model.reviewWaiting(3), true);
    assert.equal(model.reviewWaiting(1), true);
    assert.deepEqual(
      model.items.filter((i) => i.kind === 'notice').map((i) => i.kind === 'notice' && i.text),
      ['Session notes updated.', '1 memory waits for review.'],
    );
  });
});

describe('retry and edit in the items', () => {
  it('drop the last prompt and everything after it', () => {
    const model = new ChatItemsModel(() => undefined);
    model.user('first');
    model.notice('info', 'a notice');
    model.user('second', ['README.md']);
    model.notice('info', 'after');
    const dropped = model.dropLastPrompt();
    assert.equal(dropped?.text, 'second');
    assert.deepEqual(dropped?.files, ['README.md']);
    assert.deepEqual(
      model.items.map((i) => i.kind),
      ['user', 'notice'],
    );
    model.reset();
    assert.equal(model.dropLastPrompt(), undefined);
  });
});

describe('slash commands answered in the chat', () => {
  function host(): SlashHost & { calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      newChat: () => {
        calls.push('new');
      },
      help: () => {
        calls.push('help');
      },
      showContext: () => {
        calls.push('context');
      },
      openMemory: async () => {
        calls.push('memory');
      },
      remember: async (text) => {
        calls.push(`remember ${text}`);
      },
      compact: async (stage, focus) => {
        calls.push(`compact ${stage} ${focus ?? ''}`.trim());
        return true;
      },
    };
  }

  it('/help, /context and /memory never reach the model; other lines do', async () => {
    const h = host();
    for (const line of ['/help', ' /context ', '/memory', '/new', '/compact tests', '/remember tabs'])
      assert.equal(await runSlashCommand(h, line), true, line);
    assert.deepEqual(h.calls, ['help', 'context', 'memory', 'new', 'compact full tests', 'remember tabs']);
    for (const line of ['/help me write a test', 'what is /help?', '/unknown', '/remember'])
      assert.equal(await runSlashCommand(h, line), false, line);
  });

  it('a help or context item is a local item of its own', () => {
    const model = new ChatItemsModel(() => undefined);
    model.local({ kind: 'help' });
    model.local({
      kind: 'context',
      gauge: { usedTokens: 10, window: 100, reservedForOutput: 5, marks: [60, 80, 100], breakdown: [] },
    });
    assert.deepEqual(
      model.items.map((i) => i.kind),
      ['help', 'context'],
    );
    assert.notEqual(model.items[0].id, model.items[1].id);
  });
});

describe('@ mentions', () => {
  it('finds @paths at word starts, without trailing punctuation, once each', () => {
    assert.deepEqual(mentionedPaths('look at @src/a.ts, then @README.md. And @src/a.ts again; mail me@example.com'), [
      'src/a.ts',
      'README.md',
    ]);
    assert.deepEqual(mentionedPaths('@only'), ['only']);
    assert.deepEqual(mentionedPaths('no mention @ here'), []);
  });

  it('an attached file is its path and content in a fence, cut at the cap, and folded from a resumed chat', () => {
    const text = fileAttachmentText('src/a.ts', 'const a = 1;\n');
    assert.ok(isFileAttachment(text));
    assert.match(text, /src\/a\.ts/);
    assert.match(text, /```\nconst a = 1;\n```/);
    const withFence = fileAttachmentText('doc.md', 'x ```js``` y');
    assert.match(withFence, /~~~~\nx ```js``` y\n~~~~/);
    const big = fileAttachmentText('big.txt', 'y'.repeat(MAX_ATTACHED_CHARS + 10));
    assert.match(big, /Only the first 50,000 of 50,010 characters/);
    const items = itemsFromMessages(
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'explain @src/a.ts' },
            { type: 'text', text },
          ],
        },
      ],
      (n) => n,
    );
    assert.deepEqual(
      items.map((i) => i.kind === 'user' && i.text),
      ['explain @src/a.ts'],
    );
  });
});
