// Issue 34's "done when": a whole session on each provider, as a Claude Code user with that provider's
// environment runs it. `engram -p` as a child process against the test server, which speaks each wire
// format: a turn with tools (Read, Write) in a temp workspace, a compaction (a small window), the session
// notes (a low threshold), a full compaction by the model (`engram compact --stage full --write`), then
// `--resume` with another turn. Asserted on the server's log (path, model
// id in the path, no `model` in the body on Bedrock and Vertex, the auth header's shape) and on the files
// the session leaves (transcript, notes, the written file). And a prompt too long for the window, as Bedrock
// and Vertex refuse it, compacts the conversation (reactive) and the turn goes on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { SystemLine } from '../../../src/core/conversation/types';
import type { ProviderId } from '../../../src/core/llm/providerTypes';
import { SUMMARY_REQUEST_MARKER } from '../../../src/core/compaction/summaryPrompt';
import { NOTES_UPDATE_MARKER } from '../../../src/core/memory/sessionNotes/prompts';
import { DEFAULT_TEMPLATE, isTemplateOnly } from '../../../src/core/memory/sessionNotes/template';
import type { LoggedRequest, MessagesRequestBody, ScriptedReply } from '../../../src/testServer/anthropicTestServer';
import { runEngram, type CliRun } from '../support/cliProcess';
import { cliProviderEnv, TEST_AWS, TEST_FOUNDRY_KEY, WIRE_PATH } from '../support/cliProviders';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const PROVIDERS: ProviderId[] = ['anthropic', 'bedrock', 'vertex', 'foundry'];

const PROMPT_MARK = 'providers-test';
const BIG = 'big.txt';
/** Keep bounds small enough that a full compaction of this short session summarises something. */
const SMALL_KEEP = ['--keep-min-tokens', '50', '--keep-max-tokens', '400', '--keep-min-text', '1'];
const WRITTEN = 'answer.txt';

/**
 * The main conversation's answers, by its last message: Read big.txt, then Write answer.txt, then say so;
 * the resumed turn gets a line of text. Anything else (the notes updater, a summary) is the demo model's.
 */
function mainTurn(body: MessagesRequestBody, cwd: string): ScriptedReply | undefined {
  const last = JSON.stringify(body.messages.at(-1) ?? '');
  // A background request (notes, summary) may share its last message with a tool result: the demo's.
  if (last.includes(NOTES_UPDATE_MARKER) || last.includes(SUMMARY_REQUEST_MARKER)) return undefined;
  if (last.includes(`${PROMPT_MARK} one`))
    return {
      content: [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: path.join(cwd, BIG) } }],
    };
  if (last.includes('"tool_use_id":"toolu_read"')) {
    const input = { file_path: path.join(cwd, WRITTEN), content: 'the answer is 42\n' };
    return { content: [{ type: 'tool_use', id: 'toolu_write', name: 'Write', input }] };
  }
  if (last.includes('"tool_use_id":"toolu_write"')) return { content: [{ type: 'text', text: 'Wrote answer.txt.' }] };
  if (last.includes(`${PROMPT_MARK} two`))
    return { content: [{ type: 'text', text: 'You asked me to write answer.txt.' }] };
  return undefined;
}

// Strict: every request must carry its provider's credentials (a signature checked with the key's secret).
const server = useTestServer({
  demo: true,
  providers: {
    bedrock: {
      credentials: [TEST_AWS],
      acceptUnsigned: false,
    },
    vertex: { acceptUnsigned: false },
    foundry: { apiKeys: [TEST_FOUNDRY_KEY], acceptUnsigned: false },
  },
});
const tempDir = useTempDirs('all');

interface Where {
  root: string;
  cwd: string;
  dataDir: string;
  settings: string;
}

function project(): Where {
  const root = tempDir('engram-providers-');
  const cwd = path.join(root, 'ws');
  fs.mkdirSync(cwd);
  let big = '';
  for (let i = 0; big.length < 24_000; i++) big += `line ${i}: ${'the quick brown fox jumps '.repeat(1 + (i % 4))}\n`;
  fs.writeFileSync(path.join(cwd, BIG), big);
  const settings = path.join(root, 'settings.json');
  fs.writeFileSync(
    settings,
    JSON.stringify({
      // Small enough that reading big.txt passes the compaction marks within the first turn.
      'engram.contextWindow': 12_000,
      'engram.maxOutputTokens': 2_000,
      'engram.compaction.keepRecentToolResults': 0,
      // Low enough that the first responses start the notes.
      'engram.sessionNotes.initTokens': 1_000,
      'engram.sessionNotes.updateToolCalls': 1,
      'engram.memory.enabled': false,
    }),
  );
  return { root, cwd, dataDir: path.join(root, 'data'), settings };
}

async function engram(provider: ProviderId, where: Where, args: string[]): Promise<CliRun> {
  return runEngram(
    [...args, '--cwd', where.cwd, '--settings', where.settings, '--allowed-tools', 'Read,Write', '--verbose'],
    {
      home: where.root,
      env: { ...cliProviderEnv(provider, server, { emptyDir: where.root }), ENGRAM_DATA_DIR: where.dataDir },
    },
  );
}

/** The auth header's shape each provider sends (the value itself is never asserted on). */
function assertAuth(provider: ProviderId, r: LoggedRequest): void {
  const h = r.headers;
  switch (provider) {
    case 'anthropic':
      assert.ok(h['x-api-key'] === 'test-key' || h.authorization === 'Bearer test-key', JSON.stringify(h));
      break;
    case 'bedrock':
      assert.match(
        h.authorization ?? '',
        /^AWS4-HMAC-SHA256 Credential=AKID\w+\/\d{8}\/us-west-2\/bedrock\/aws4_request, /,
      );
      assert.ok(h['x-amz-date'], 'SigV4 dates the request');
      break;
    case 'vertex':
      assert.match(h.authorization ?? '', /^Bearer \S+/);
      break;
    case 'foundry':
      assert.ok(h['x-api-key'] || /^Bearer /.test(h.authorization ?? ''), JSON.stringify(h));
      break;
  }
}

const COUNT_PATH: Record<ProviderId, RegExp> = {
  anthropic: /^\/v1\/messages\/count_tokens$/,
  bedrock: /^$/,
  vertex: /\/publishers\/anthropic\/models\/count-tokens:rawPredict$/,
  foundry: /^\/anthropic\/v1\/messages\/count_tokens$/,
};

/** The id each provider's requests carry for the default model (claude-sonnet-4-6): Bedrock's US profile in us-west-2. */
const WIRE_MODEL: Record<ProviderId, string> = {
  anthropic: 'claude-sonnet-4-6',
  bedrock: 'us.anthropic.claude-sonnet-4-6',
  vertex: 'claude-sonnet-4-6',
  foundry: 'claude-sonnet-4-6',
};

/** Every request went over the provider's wire, was accepted, and had the provider's shape. */
function assertWire(provider: ProviderId, sent: LoggedRequest[]): void {
  assert.ok(sent.length > 0);
  for (const r of sent) {
    assert.match(r.path, WIRE_PATH[provider], r.path);
    assert.equal(r.status, 200, `${r.path}: ${r.error ?? ''}`);
    assert.equal(r.model, WIRE_MODEL[provider]);
    assertAuth(provider, r);
    if (provider === 'bedrock' || provider === 'vertex') {
      assert.equal('model' in r.body, false, 'the model is in the path, not the body');
      assert.equal(typeof r.body.anthropic_version, 'string', 'the API version is in the body');
    }
  }
}

const has = (r: LoggedRequest, marker: string): boolean => JSON.stringify(r.body.messages).includes(marker);

for (const provider of PROVIDERS) {
  describe(`a whole session on ${provider}`, () => {
    it('tools, a compaction, the session notes, a full compaction and a resume, all over the provider', async () => {
      const where = project();
      server.setResponder((body) => mainTurn(body, where.cwd));
      const first = server.requests.length;
      const firstCount = server.counts.length;
      const run = await engram(provider, where, [
        '-p',
        `${PROMPT_MARK} one: read big.txt, then write answer.txt`,
        '--output-format',
        'json',
      ]);
      assert.equal(run.code, 0, run.stderr);
      const out = JSON.parse(run.stdout) as { result: string; sessionId: string; transcript: string };
      assert.equal(out.result, 'Wrote answer.txt.');
      assert.equal(fs.readFileSync(path.join(where.cwd, WRITTEN), 'utf8'), 'the answer is 42\n', 'Write ran');
      assert.match(run.stderr, new RegExp(`provider ${provider} \\(from `), 'the verbose line names the provider');
      const sent = server.requests.slice(first);
      assertWire(provider, sent);
      assert.ok(
        sent.some((r) => has(r, `${PROMPT_MARK} one`) && has(r, '"tool_use_id":"toolu_write"')),
        'tool turn',
      );
      // Token counts: asked of the provider where it has them; Bedrock's client has none (the local estimate).
      const counts = server.counts.slice(firstCount);
      if (provider === 'bedrock')
        assert.equal(counts.length, 0, JSON.stringify(counts.map((c) => [c.path, c.status, c.error])));
      else {
        assert.ok(counts.length > 0, 'the prompt was counted by the provider');
        for (const c of counts) assert.equal(c.status, 200, `${c.path}: ${c.error ?? ''}`);
        assert.match(counts[0].path, COUNT_PATH[provider]);
      }

      // The compaction within the turn: said on stderr (--verbose) and recorded in the transcript.
      assert.match(run.stderr, /compacted \((micro|session-memory|full)\)/, run.stderr);
      assert.ok(
        (await readTranscript(out.transcript)).lines.some((l) => JSON.stringify(l).includes('microcompact')),
        'the compaction is in the transcript',
      );
      // The notes: the updater ran over the provider and wrote notes from the conversation, not the template.
      assert.ok(
        sent.some((r) => has(r, NOTES_UPDATE_MARKER)),
        'the notes updater asked the model',
      );
      const notes = path.join(path.dirname(out.transcript), out.sessionId, 'session-memory', 'summary.md');
      assert.equal(isTemplateOnly(fs.readFileSync(notes, 'utf8'), DEFAULT_TEMPLATE), false);

      // A full compaction (a summary by the model) over the provider, appended to the transcript; chosen
      // here with --provider, the CLAUDE_CODE_USE_* switch left out of the environment.
      const before = server.requests.length;
      const compactEnv = cliProviderEnv(provider, server, { emptyDir: where.root });
      for (const k of Object.keys(compactEnv)) if (k.startsWith('CLAUDE_CODE_USE_')) delete compactEnv[k];
      const compact = await runEngram(
        ['compact', out.transcript, '--stage', 'full', '--write', '--json', '--provider', provider, ...SMALL_KEEP],
        { home: where.root, env: compactEnv },
      );
      assert.equal(compact.code, 0, compact.stderr + compact.stdout);
      const summaryCalls = server.requests.slice(before);
      assertWire(provider, summaryCalls);
      assert.ok(
        summaryCalls.some((r) => has(r, SUMMARY_REQUEST_MARKER)),
        'the summary was asked of the model',
      );
      const boundaries = (await readTranscript(out.transcript)).lines.filter(
        (l) => l.type === 'system' && (l as SystemLine).subtype === 'compact_boundary',
      );
      assert.equal(boundaries.length, 1);

      // The resume: the same transcript, from the compacted conversation, over the same provider.
      const again = server.requests.length;
      const resumed = await engram(provider, where, [
        '-p',
        `${PROMPT_MARK} two: what did I ask?`,
        '--resume',
        out.sessionId,
        '--output-format',
        'json',
      ]);
      assert.equal(resumed.code, 0, resumed.stderr);
      const second = JSON.parse(resumed.stdout) as { result: string; sessionId: string; transcript: string };
      assert.equal(second.sessionId, out.sessionId);
      assert.equal(second.transcript, out.transcript);
      assert.equal(second.result, 'You asked me to write answer.txt.');
      const later = server.requests.slice(again);
      assertWire(provider, later);
      const turn = later.find((r) => has(r, `${PROMPT_MARK} two`));
      assert.ok(turn, 'the resumed turn reached the server');
      assert.ok(has(turn, 'Wrote answer.txt.'), 'the kept end of the first turn was sent again');
      assert.equal(has(turn, 'line 400: '), false, 'big.txt was compacted away, not sent again');
    });
  });
}

describe('a prompt too long on a cloud', () => {
  for (const provider of ['bedrock', 'vertex'] as const) {
    it(`${provider}: the provider's refusal compacts the conversation and the turn goes on`, async () => {
      const where = project();
      let refused = 0;
      server.setResponder((body) => {
        const last = JSON.stringify(body.messages.at(-1) ?? '');
        if (last.includes(NOTES_UPDATE_MARKER) || last.includes(SUMMARY_REQUEST_MARKER)) return undefined;
        if (last.includes(`${PROMPT_MARK} long`))
          return {
            content: [
              { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: path.join(where.cwd, BIG) } },
            ],
          };
        if (refused++ === 0)
          return {
            error: {
              status: 400,
              type: 'invalid_request_error',
              message: 'prompt is too long: 210000 tokens > 200000 maximum',
            },
          };
        return { content: [{ type: 'text', text: 'Read it after all.' }] };
      });
      const first = server.requests.length;
      const run = await engram(provider, where, ['-p', `${PROMPT_MARK} long: read big.txt`]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'Read it after all.\n');
      const sent = server.requests.slice(first);
      const refusal = sent.findIndex((r) => r.status === 400);
      assert.ok(refusal > 0, 'the provider refused a request');
      assert.match(sent[refusal].path, WIRE_PATH[provider]);
      assert.match(run.stderr, /compacted \(reactive\): 210000 -> /, 'the refusal was read as prompt too long');
      assert.equal(sent.at(-1)?.status, 200);
    });
  }
});
