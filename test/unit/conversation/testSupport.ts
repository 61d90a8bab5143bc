// Shared by the conversation tests: where the Claude Code fixtures are, and what the API would accept.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { validateMessagesRequest } from '../../../src/testServer/requestValidator';
import type { ApiMessage } from '../../../src/core/conversation/types';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
/** Real files written by Claude Code 2.1.88; tests may only reach them through `../shared/fixtures`. */
export const CC_FIXTURES = path.resolve(REPO_ROOT, '../shared/fixtures/claude-code-2.1.88');

export async function fixtureTranscripts(): Promise<string[]> {
  const names = await fsp.readdir(CC_FIXTURES);
  return names.filter((n) => n.endsWith('.jsonl') && !n.includes('history')).sort();
}

/** The validator's verdict on a request carrying these messages (null when the API would accept it). */
export function validate(messages: ApiMessage[]): ReturnType<typeof validateMessagesRequest> {
  return validateMessagesRequest({ model: 'claude-test', max_tokens: 1024, messages });
}
