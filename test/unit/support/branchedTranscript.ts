// A transcript as two writers on one session left it before sessions had one writer at a time: both
// read the same leaf and appended their turn to it, so the conversation branches there.
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';

const usage = { input_tokens: 10, output_tokens: 2 };
let calls = 0;

/** One turn: the prompt, `tools` parallel Read calls with their results, then the answer. */
export async function writeTurn(w: TranscriptWriter, prompt: string, tools: number): Promise<void> {
  await w.appendUserPrompt(prompt);
  const id = `msg_${++calls}`;
  const ids = Array.from({ length: tools }, () => `toolu_${++calls}`);
  for (const toolId of ids) {
    await w.appendAssistantBlock(
      { id, model: 'claude-test', stopReason: 'tool_use', usage },
      { type: 'tool_use', id: toolId, name: 'Read', input: { file_path: `/p/${toolId}` } },
    );
  }
  for (const toolId of ids)
    await w.appendToolResult({ type: 'tool_result', tool_use_id: toolId, content: `contents of ${toolId}` });
  await w.appendAssistantBlock(
    { id: `msg_${++calls}`, model: 'claude-test', stopReason: 'end_turn', usage },
    { type: 'text', text: `answer to ${prompt}` },
  );
}

/**
 * Lines 1-4: the first turn (prompt, call, result, answer); then window A's turn (lines 5-8) and
 * window B's (lines 9-12), both hanging off line 4. Returns the session id.
 */
export async function writeBranchedTranscript(file: string, sessionId = 'branched'): Promise<string> {
  const first = new TranscriptWriter({ file, sessionId, cwd: '/p', version: '0' });
  await writeTurn(first, 'first', 1);
  const leaf = first.lastUuid;
  for (const who of ['A', 'B']) {
    await writeTurn(
      new TranscriptWriter({ file, sessionId, cwd: '/p', version: '0', parentUuid: leaf }),
      `from window ${who}`,
      1,
    );
  }
  return sessionId;
}
