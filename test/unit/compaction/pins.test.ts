// Issue 24, pins in compaction: the budget keeps whole pins, newest first, and names the ones it cut; a
// session-memory compaction and a full one put the pins word for word after the notes or summary, in the
// tagged block, and record what they carried on the event (read back from the transcript too).
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { staticNotesSource } from '../../../src/core/compaction/notesSource';
import { CompactionOrchestrator } from '../../../src/core/compaction/orchestrator';
import { carryPins, PINNED_OPEN } from '../../../src/core/compaction/pinnedBlock';
import { loadReplayedConversation, recordedEvents } from '../../../src/core/compaction/recordedCompactions';
import type { Pin } from '../../../src/core/conversation/pinLines';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { startSession } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;
beforeEach(() => {
  workspace = tempDir('engram-pins-ws-');
  dataDir = tempDir('engram-pins-data-');
});

const pin = (id: string, text: string): Pin => ({
  id,
  at: '2026-01-01T00:00:00.000Z',
  text,
  source: { kind: 'message', role: 'user' },
});
/** One token per character: costs the test can count. */
const chars = (t: string): number => t.length;

describe('the pin budget', () => {
  it('carries every pin in order when they fit, and the block quotes each word for word', () => {
    const pins = [pin('a', 'never push to main'), pin('b', 'use pnpm, not npm')];
    const c = carryPins(pins, 100, chars);
    assert.deepEqual(
      c.carried.map((x) => x.pin.id),
      ['a', 'b'],
    );
    assert.equal(c.tokens, 'never push to main'.length + 'use pnpm, not npm'.length);
    assert.deepEqual(c.cut, []);
    assert.ok(c.text.includes(`${PINNED_OPEN}\n<pin>\nnever push to main\n</pin>\n<pin>\nuse pnpm, not npm\n</pin>`));
  });

  it('cuts the oldest pins that do not fit, whole, and keeps a smaller older one that still fits', () => {
    const pins = [
      pin('old', 'x'.repeat(30)),
      pin('small', 'y'.repeat(5)),
      pin('mid', 'z'.repeat(40)),
      pin('new', 'w'.repeat(50)),
    ];
    const c = carryPins(pins, 95, chars);
    assert.deepEqual(
      c.carried.map((x) => x.pin.id),
      ['small', 'mid', 'new'],
      'newest first while they fit: the 30-token oldest one does not',
    );
    assert.deepEqual(
      c.cut.map((p) => p.id),
      ['old'],
    );
    assert.equal(c.tokens, 95);
    assert.ok(!c.text.includes('xxx'), 'a cut pin is left out whole, not truncated');
  });

  it('carries nothing with a budget of 0, and says so', () => {
    const c = carryPins([pin('a', 'keep this')], 0, chars);
    assert.equal(c.text, '');
    assert.equal(c.cut.length, 1);
  });
});

const usage = { input_tokens: 900, output_tokens: 10 };
const text = (m: ApiMessage): string =>
  typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');

async function compacted(stage: 'session-memory' | 'full', pins: Pin[], budget = 4_000) {
  const h = await startSession(server, { workspace, dataDir });
  const orch = new CompactionOrchestrator({
    settings: { keepMinTokens: 10, keepMaxTokens: 200, keepMinTextMessages: 1, pinBudgetTokens: budget },
    notes: staticNotesSource({ text: '# Current State\n_Now?_\nPinning things.' }),
    pins: () => pins,
  });
  orch.attach(h.session.agent);
  for (const word of ['one', 'two', 'three']) {
    server.enqueue({ content: [{ type: 'text', text: `answer ${word} ${'a'.repeat(400)}` }], usage });
    await h.session.agent.runTurn(`prompt ${word} ${'p'.repeat(400)}`);
  }
  if (stage === 'full')
    server.enqueue({ content: [{ type: 'text', text: '<analysis>a</analysis><summary>1. Intent: pins.</summary>' }] });
  const r = await orch.compactNow(stage);
  assert.ok(r.ok, r.reason);
  server.enqueue({ content: [{ type: 'text', text: 'next' }], usage });
  await h.session.agent.runTurn('after the compaction');
  const sent = server.requests[server.requests.length - 1].body.messages as ApiMessage[];
  return { orch, sent, file: h.session.transcriptPath };
}

for (const stage of ['session-memory', 'full'] as const) {
  describe(`a ${stage} compaction`, () => {
    it('puts the pins word for word after the notes or summary and records what it carried', async () => {
      const pins = [
        pin('p1', 'Rule: run `npm test` before each commit.'),
        pin('p2', 'The API key lives in .env.local'),
      ];
      const { orch, sent, file } = await compacted(stage, pins);
      const opening = text(sent[0]);
      const body = stage === 'full' ? 'Intent: pins.' : 'Pinning things.';
      assert.ok(opening.includes(body));
      const at = opening.indexOf(PINNED_OPEN);
      assert.ok(at > opening.indexOf(body), 'the pins come after the summary or notes');
      assert.ok(opening.includes('Rule: run `npm test` before each commit.'));
      assert.ok(opening.includes('The API key lives in .env.local'));
      const event = orch.events[orch.events.length - 1];
      assert.equal(event.stage, stage);
      assert.deepEqual(event.pinsCarried, { count: 2, tokens: event.pinsCarried?.tokens, cut: 0 });
      assert.ok((event.pinsCarried?.tokens ?? 0) > 10);
      const read = await loadReplayedConversation(file);
      const back = recordedEvents(read.records).active;
      assert.deepEqual(back[back.length - 1].pinsCarried, event.pinsCarried, 'read back from the transcript');
    });
  });
}

describe('a compaction over the pin budget', () => {
  it('leaves the oldest pin out and counts it as cut', async () => {
    const pins = [pin('old', 'old '.repeat(300)), pin('new', 'the newest pin')];
    const { orch, sent } = await compacted('session-memory', pins, 100);
    assert.ok(text(sent[0]).includes('the newest pin'));
    assert.ok(!text(sent[0]).includes('old old old'));
    assert.equal(orch.events[0].pinsCarried?.count, 1);
    assert.equal(orch.events[0].pinsCarried?.cut, 1);
  });
});
