// The gauge every surface shows (core/inspection/contextSnapshot): the categories add up to the number,
// recalled memories and session notes are carved out of the messages, the settings frame it (a changed
// window or mark changes the state at once), and it is the very number the compaction orchestrator
// decides on, on a live agent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { composeSystemPrompt } from '../../../src/core/agent/systemPrompt';
import { CompactionOrchestrator } from '../../../src/core/compaction/orchestrator';
import { notesSummaryText } from '../../../src/core/compaction/sessionMemoryCompact';
import type { ApiMessage, ToolSchema } from '../../../src/core/conversation/types';
import { gaugeCategories, gaugeState, notesTokens, recalledTokens } from '../../../src/core/inspection/contextSnapshot';
import { compactionMarks } from '../../../src/core/settings/engramSettings';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { TokenEstimator } from '../../../src/core/tokens/accounting';
import { ContextGauge } from '../../../src/core/tokens/contextGauge';
import type { Tool } from '../../../src/core/tools/tool';
import { startTestServer, type ScriptedReply, type TestServer } from '../../../src/testServer/anthropicTestServer';
import { startSession } from '../support/agentHarness';
import { tempDir } from '../support/tempDirs';
import { outputTool as makeOutputTool } from '../support/outputTool';

const count = (text: string) => Math.ceil(text.length / 4);
const CATEGORIES = [
  'system',
  'tools',
  'instructions',
  'memory index',
  'recalled memories',
  'session notes',
  'messages',
  'tool results',
];
const sum = (b: Array<{ tokens: number }>) => b.reduce((n, c) => n + c.tokens, 0);

describe('gauge state', () => {
  it('sizes the system prompt by its parts, carves recalled memories out of the messages, and the parts add up', () => {
    const composed = composeSystemPrompt({
      cwd: '/w',
      platform: 'linux',
      date: '2026-01-01',
      instructions: 'Use tabs. '.repeat(50),
      memory: { dir: '/m', index: '- [A](a.md) — hook\n'.repeat(20) },
    });
    const tools = [{ schema: { name: 'Read', description: 'reads', input_schema: { type: 'object' } } as ToolSchema }];
    const messages: ApiMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'text', text: `<engram-memory file="a.md" hash="ab">\n${'remember '.repeat(40)}</engram-memory>` },
        ],
      },
      { role: 'assistant', content: 'hi' },
    ];
    const gauge = new ContextGauge({ count });
    gauge.setSystem(composed.blocks, tools, composed.parts);
    gauge.onResponse({ input_tokens: 5_000, output_tokens: 10 }, messages);
    const store = new SettingsStore();
    const state = gaugeState(gauge, { messages, systemPrompt: composed.blocks, offeredTools: tools }, store.settings);
    assert.equal(state.usedTokens, 5_010);
    assert.deepEqual(
      state.breakdown.map((c) => c.category),
      CATEGORIES,
    );
    assert.equal(sum(state.breakdown), state.usedTokens);
    const by = new Map(state.breakdown.map((c) => [c.category, c.tokens]));
    assert.equal(by.get('instructions'), count(composed.parts.instructions));
    assert.equal(by.get('memory index'), count(composed.parts.memoryIndex));
    assert.ok((by.get('recalled memories') ?? 0) > 50, JSON.stringify(state.breakdown));
    assert.deepEqual([state.window, state.reservedForOutput, state.marks], [200_000, 16_000, [60, 80, 100]]);
  });

  it('counts the session notes that replaced old messages as "session notes"', () => {
    const estimator = new TokenEstimator(count);
    const messages: ApiMessage[] = [
      {
        role: 'user',
        content: [{ type: 'text', text: notesSummaryText('# Current State\n' + 'working on it '.repeat(60)) }],
      },
      { role: 'assistant', content: 'ok' },
    ];
    const notes = notesTokens(messages, estimator);
    assert.ok(notes > 150, `${notes}`);
    assert.equal(notesTokens([{ role: 'user', content: 'just a prompt' }], estimator), 0);
    assert.equal(recalledTokens(messages, estimator), 0);
    const gauge = new ContextGauge({ estimator });
    const state = gaugeState(gauge, { messages }, new SettingsStore().settings);
    assert.equal(state.breakdown.find((c) => c.category === 'session notes')?.tokens, notes);
    assert.equal(sum(state.breakdown), state.usedTokens);
    // Carve-outs never exceed the messages they come from.
    const cats = gaugeCategories(
      {
        system: 0,
        instructions: 0,
        memoryIndex: 0,
        notes: 0,
        tools: 0,
        mcpTools: 0,
        messages: 10,
        toolResults: 0,
        total: 10,
        estimated: 10,
      },
      { recalled: 8, notes: 8 },
    );
    assert.deepEqual(
      cats.filter((c) => c.tokens > 0).map((c) => [c.category, c.tokens]),
      [
        ['recalled memories', 8],
        ['session notes', 2],
      ],
    );
  });

  it('lists the definitions of MCP tools as "mcp tools" after the built-in tools, and only when some are offered', () => {
    const system = [{ type: 'text' as const, text: 'be brief '.repeat(40) }];
    const read = { schema: { name: 'Read', description: 'reads', input_schema: { type: 'object' } } as ToolSchema };
    const echo = {
      schema: { name: 'mcp__srv__echo', description: 'echoes '.repeat(30), input_schema: { type: 'object' } },
      mcp: { server: 'srv', tool: 'echo' },
    } as const;
    const messages: ApiMessage[] = [{ role: 'user', content: 'hello' }];
    const settings = new SettingsStore().settings;
    const gauge = new ContextGauge({ count });
    const plain = gaugeState(gauge, { messages, systemPrompt: system, offeredTools: [read] }, settings);
    assert.deepEqual(
      plain.breakdown.map((c) => c.category),
      CATEGORIES,
      'without MCP tools the categories are as they always were',
    );
    const withMcp = gaugeState(gauge, { messages, systemPrompt: system, offeredTools: [read, echo] }, settings);
    assert.deepEqual(withMcp.breakdown.map((c) => c.category).slice(0, 3), ['system', 'tools', 'mcp tools']);
    const by = new Map(withMcp.breakdown.map((c) => [c.category, c.tokens]));
    assert.equal(by.get('mcp tools'), count(JSON.stringify([echo.schema])));
    assert.equal(by.get('tools'), count(JSON.stringify([read.schema])));
    assert.equal(sum(withMcp.breakdown), withMcp.usedTokens);
    assert.equal(withMcp.usedTokens - plain.usedTokens, by.get('mcp tools'));
  });

  it('follows the settings: a changed window or mark changes the state at once, the measure stays', () => {
    const gauge = new ContextGauge({ count });
    const messages: ApiMessage[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ];
    gauge.onResponse({ input_tokens: 30_000, output_tokens: 0 }, messages);
    const store = new SettingsStore();
    const before = gaugeState(gauge, { messages }, store.settings);
    let fired = 0;
    store.onChange(() => fired++);
    store.update({ contextWindow: 50_000, 'compaction.microcompactPercent': 50, maxOutputTokens: 8_000 });
    assert.equal(fired, 1);
    const afterChange = gaugeState(gauge, { messages }, store.settings);
    assert.equal(afterChange.usedTokens, before.usedTokens);
    assert.deepEqual(
      [afterChange.window, afterChange.reservedForOutput, afterChange.marks],
      [50_000, 8_000, [50, 80, 100]],
    );
    assert.deepEqual(afterChange.marks, compactionMarks(store.settings));
    assert.deepEqual(gaugeState(undefined, undefined, store.settings), {
      window: 50_000,
      reservedForOutput: 8_000,
      marks: [50, 80, 100],
      usedTokens: 0,
      breakdown: [],
    });
  });
});

describe('one number for compaction and the screen', () => {
  let server: TestServer;
  let workspace: string;
  let dataDir: string;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  beforeEach(() => {
    workspace = tempDir('engram-gws-');
    dataDir = tempDir('engram-gdata-');
  });
  afterEach(() => {
    assert.equal(server.pending(), 0, 'every queued reply was used');
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const outputTool: Tool = makeOutputTool({ labelled: false });
  const usage = (total: number) => ({
    input_tokens: total - 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 10,
  });
  const call = (size: number): ScriptedReply => ({
    content: [{ type: 'tool_use', name: 'Output', input: { size } }],
    usage: usage(1_000),
  });
  const answer = (text: string, reported = 1_000): ScriptedReply => ({
    content: [{ type: 'text', text }],
    usage: usage(reported),
  });

  it('the orchestrator decides on the gauge the host shows: the same tokens before, the same marks', async () => {
    const h = await startSession(server, { workspace, dataDir, tools: [outputTool] });
    const agent = h.session.agent;
    const store = new SettingsStore({ contextWindow: 100_000 });
    const gauge = new ContextGauge();
    const orch = new CompactionOrchestrator({ gauge, settings: { contextWindow: store.settings.contextWindow } });
    assert.equal(orch.gauge, gauge);
    orch.attach(agent);
    const shownAtCompaction: number[] = [];
    orch.on((e) => {
      if (e.type === 'compacted') shownAtCompaction.push(gaugeState(gauge, agent, store.settings).usedTokens);
    });

    server.enqueue(...[9_000, 9_001, 9_002, 9_003, 9_004, 9_005, 9_006].map(call), answer('first turn done', 65_000));
    await agent.runTurn('produce output');
    const shown = gaugeState(gauge, agent, store.settings);
    assert.ok(shown.usedTokens >= 65_000 && shown.usedTokens < 65_100, `${shown.usedTokens}`);
    assert.equal(orch.usedTokens(agent.messages), shown.usedTokens);
    assert.ok((shown.usedTokens / shown.window) * 100 >= shown.marks[0], 'past the first mark on screen');

    server.enqueue(answer('second'));
    await agent.runTurn('again');
    assert.deepEqual(
      orch.events.map((e) => e.stage),
      ['micro'],
    );
    assert.deepEqual(
      shownAtCompaction,
      [orch.events[0].tokensBefore],
      'what the screen showed is what compaction measured',
    );
    const afterCompaction = gaugeState(gauge, agent, store.settings);
    assert.equal(afterCompaction.usedTokens, orch.usedTokens(agent.messages));
    assert.equal(sum(afterCompaction.breakdown), afterCompaction.usedTokens);
  });

  it("an orchestrator without a gauge makes its own, sized from the agent's prompt", async () => {
    const h = await startSession(server, { workspace, dataDir, tools: [outputTool] });
    const orch = new CompactionOrchestrator({ settings: { contextWindow: 100_000 } });
    orch.attach(h.session.agent);
    const used = orch.usedTokens(h.session.agent.messages);
    assert.ok(used > 300 && used === orch.gauge.fixedTokens, `${used}: nothing but the system prompt and tools yet`);
  });
});
