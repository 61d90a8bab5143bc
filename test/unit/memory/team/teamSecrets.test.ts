// The secret check before a write into the team folder: the rule, the kind and the 1-based line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findTeamSecret, teamWriteProblem } from '../../../../src/core/memory/team/teamSecrets';
import { PLANTED_SECRETS, topicWithSecret } from './plantedSecrets';

const env = {}; // no credentials of this process: only the rules count

describe('teamWriteProblem', () => {
  it('passes ordinary memory text', async () => {
    assert.equal(await teamWriteProblem('---\nname: build\n---\nRun `npm run build` before tests.\n', { env }), null);
  });

  it('names the rule and the line of an Anthropic key', async () => {
    const { text, line } = topicWithSecret('api', PLANTED_SECRETS.anthropic);
    assert.deepEqual(await findTeamSecret(text, { env }), { rule: 'engram/anthropic-key', kind: 'anthropic', line });
    const problem = await teamWriteProblem(text, { env });
    assert.match(problem ?? '', /anthropic/);
    assert.match(problem ?? '', new RegExp(`line ${line}\\b`));
  });

  for (const kind of ['aws', 'github', 'privatekey'] as const) {
    it(`finds a planted ${kind} secret by the preset's rule, on its line`, async () => {
      const { text, line } = topicWithSecret(kind, PLANTED_SECRETS[kind]);
      const hit = await findTeamSecret(text, { env });
      assert.equal(hit?.kind, kind);
      assert.equal(hit?.line, line);
    });
  }

  it('finds a credential of this process whatever its shape', async () => {
    const hit = await findTeamSecret('notes\nproxy key: zz-gateway-0123456789\n', {
      env: { ANTHROPIC_API_KEY: 'zz-gateway-0123456789' },
    });
    assert.deepEqual(hit, { rule: 'engram/known-credential', kind: 'api key', line: 2 });
  });
});
