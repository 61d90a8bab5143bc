// A prompt with an @file: the Chat view sends the person's words, then the file in an <engram-file> block,
// in one user message. The offline demo answered with that block echoed back, and its compaction
// summary and session notes listed the block as a user message of its own; a session's title took it too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUMMARY_REQUEST_MARKER } from '../../../src/core/compaction/summaryPrompt';
import { promptText } from '../../../src/core/conversation/transcriptReader';
import type { UserLine } from '../../../src/core/conversation/types';
import { demoReply } from '../../../src/demoModel/demoModel';
import { fileAttachmentText } from '../../../src/vscode/chat/fileMentions';
import { requestBody, textOf } from './requestBody';

const ATTACHED = fileAttachmentText('src/greet.js', 'export const greet = (n) => `Hello, ${n}`;\n');
const PROMPT = {
  role: 'user' as const,
  content: [
    { type: 'text', text: 'what is this for? @src/greet.js' },
    { type: 'text', text: ATTACHED },
  ],
};

describe('an @file attachment', () => {
  it('is not echoed by the demo model', () => {
    const reply = textOf(demoReply(requestBody([PROMPT])));
    assert.doesNotMatch(reply, /engram-file|The user attached the file|Hello, \$\{n\}/);
  });

  it("is not a user message of its own in the demo's compaction summary", () => {
    const reply = textOf(
      demoReply(
        requestBody([
          PROMPT,
          { role: 'assistant', content: 'It greets.' },
          { role: 'user', content: `${SUMMARY_REQUEST_MARKER}\nSummarize.` },
        ]),
      ),
    );
    const users = /All user messages[^\n]*\n([\s\S]*?)(\n\d+\.|\n#|$)/.exec(reply)?.[1] ?? '';
    assert.match(users, /"what is this for\? @src\/greet\.js"/);
    assert.doesNotMatch(reply, /engram-file|The user attached the file/);
  });

  it('is not part of the prompt a session is listed under', () => {
    const line = {
      type: 'user',
      uuid: 'u',
      parentUuid: null,
      sessionId: 's',
      timestamp: '2026-12-03T00:00:00Z',
      message: PROMPT,
    } as unknown as UserLine;
    assert.equal(promptText(line), 'what is this for? @src/greet.js');
  });
});
