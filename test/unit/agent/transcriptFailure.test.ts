// Issue #13, class 1: a turn whose transcript cannot be written fails, with the reason, instead of
// going on as if it had been saved (a resume would then miss it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { Agent } from '../../../src/core/agent/agent';
import type { AgentEvent } from '../../../src/core/agent/events';
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import type { ModelClient } from '../../../src/core/llm/modelClient';
import { denyAllPrompt } from '../../../src/core/agent/permissions';

it('a full disk (ENOSPC) fails the turn before any model call, naming the transcript', {
  skip: !fs.existsSync('/dev/full') && 'needs /dev/full',
}, async () => {
  let calls = 0;
  const client: ModelClient = {
    stream: async () => {
      calls++;
      return {
        id: 'msg_1',
        model: 'm',
        content: [{ type: 'text', text: 'ok' }],
        stopReason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      };
    },
  };
  const transcript = new TranscriptWriter({ file: '/dev/full', sessionId: 's', cwd: '/p', version: '0.0.0-test' });
  const agent = new Agent({
    client,
    model: 'm',
    maxTokens: 100,
    system: [],
    tools: [],
    trusted: true,
    permissionPrompt: denyAllPrompt,
    cwd: '/p',
    sessionId: 's',
    transcript,
  });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  const result = await agent.runTurn('hello');
  assert.equal(result.reason, 'error');
  assert.equal(calls, 0, 'no model call whose answer could not be kept');
  assert.equal(result.error?.retryable, false);
  assert.match(String(result.error?.message), /transcript/i);
  assert.match(String(result.error?.message), /\/dev\/full/);
  assert.match(String(result.error?.message), /ENOSPC|no space/i);
  assert.ok(events.some((e) => e.type === 'error' && /transcript/i.test(e.message)));
});
