import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CHAT_TO_HOST_SHAPES,
  INSPECTOR_TO_HOST_SHAPES,
  MAX_FIELD_LENGTH,
  parseMessage,
  type ChatToHost,
} from '../../../src/protocol/messages';

test('valid chat messages parse to the typed union', () => {
  const samples: ChatToHost[] = [
    { type: 'ready' },
    { type: 'send', text: 'hello <script>alert(1)</script>' },
    { type: 'permission', requestId: 'p1', choice: 'allowSession' },
    { type: 'resume', sessionId: 'abc' },
    { type: 'runCommand', command: 'openInspector' },
  ];
  for (const sample of samples) {
    const parsed = parseMessage(sample, CHAT_TO_HOST_SHAPES);
    assert.deepEqual(parsed, { ok: true, message: sample });
  }
});

test('unknown types, wrong field types, extra fields and non-objects are rejected with a reason', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ type: 'bogus' }, /unknown message type "bogus"/],
    [{ type: 'toString' }, /unknown message type/],
    [{ type: '__proto__' }, /unknown message type/],
    [{ type: 'send', text: 42 }, /send\.text: expected a string, got number/],
    [{ type: 'send' }, /send\.text: expected a string, got undefined/],
    [{ type: 'send', text: 'x', evil: 1 }, /unexpected field "evil"/],
    [
      { type: 'permission', requestId: 'r', choice: 'always' },
      /expected one of allowOnce, allowSession, allowAlways, deny/,
    ],
    [{ type: 'runCommand', command: 'workbench.action.terminal.new' }, /expected one of/],
    [{ type: 'send', text: 'x'.repeat(MAX_FIELD_LENGTH + 1) }, /longer than/],
    [null, /not an object/],
    ['send', /not an object/],
    [[{ type: 'ready' }], /not an object/],
    [{}, /unknown message type undefined/],
  ];
  for (const [raw, reason] of cases) {
    const parsed = parseMessage(raw, CHAT_TO_HOST_SHAPES);
    assert.equal(parsed.ok, false, `accepted ${JSON.stringify(raw)?.slice(0, 60)}`);
    if (!parsed.ok) assert.match(parsed.error, reason);
  }
});

test('the inspector has its own, separate vocabulary', () => {
  assert.equal(parseMessage({ type: 'send', text: 'x' }, INSPECTOR_TO_HOST_SHAPES).ok, false);
  assert.equal(parseMessage({ type: 'refresh' }, INSPECTOR_TO_HOST_SHAPES).ok, true);
});
