import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import {
  answerBackground,
  chatInBothThemes,
  freshChat,
  lastUserText,
  sendFromUi,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Claude through a cloud (issue 34), in the real Chat view against the project's test server over real
// HTTP: the first-run screen offers Amazon Bedrock, Google Vertex AI and Microsoft Foundry beside the API
// key; choosing Bedrock asks for the region (prefilled from AWS_REGION) and writes the settings; a key AWS
// does not know shows as an error naming `aws sso login`, with a "How to Log In" action; a tool turn
// then goes to Bedrock's invoke-with-response-stream route signed with SigV4 by AWS's real credential chain
// (static keys in this extension host's environment, the signature checked by the server); switching
// `engram.provider` to Vertex continues the same conversation on Vertex's streamRawPredict route with a token
// Google's Application Default Credentials got from the server's GCE metadata emulation; and unsetting it
// goes back to the Anthropic API. Microsoft Foundry, chosen on the screen with its endpoint already set,
// answers with the key from ANTHROPIC_FOUNDRY_API_KEY (the server accepts only that key).

/** AWS's documented example key id shape (AKIA + 16): a static key the default chain reads from the environment. */
const AWS_KEY_ID = 'AKIAENGRAMTEST000001';
const AWS_SECRET = 'engram-test-secret-key';
const REGION = 'us-west-2';
const PROJECT = 'engram-test';
const FOUNDRY_KEY = 'engram-foundry-test-key';

/** The variables this suite sets or clears; put back as they were afterwards. */
const TOUCHED_ENV = [
  'ANTHROPIC_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_BEARER_TOKEN_BEDROCK',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_SKIP_BEDROCK_AUTH',
  'CLAUDE_CODE_SKIP_VERTEX_AUTH',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GCE_METADATA_HOST',
  'CLOUDSDK_CONFIG',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'ANTHROPIC_FOUNDRY_RESOURCE',
  'ANTHROPIC_FOUNDRY_BASE_URL',
];
const PROVIDER_SETTINGS = [
  'model',
  'provider',
  'bedrock.region',
  'bedrock.baseUrl',
  'vertex.region',
  'vertex.projectId',
  'vertex.baseUrl',
  'foundry.baseUrl',
];

function keepEnv(): () => void {
  const saved = new Map(TOUCHED_ENV.map((k) => [k, process.env[k]]));
  for (const k of TOUCHED_ENV) if (k !== 'ANTHROPIC_API_KEY') delete process.env[k];
  return () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

async function resetProviderSettings(): Promise<void> {
  const config = vscode.workspace.getConfiguration('engram');
  for (const key of PROVIDER_SETTINGS) await config.update(key, undefined, vscode.ConfigurationTarget.Global);
}

/** Shows the first-run screen: no key stored or in the environment, no choice made. */
async function showFirstRun(api: Awaited<ReturnType<typeof freshChat>>): Promise<void> {
  delete process.env.ANTHROPIC_API_KEY;
  await vscode.commands.executeCommand('engram.clearApiKey');
  await api.chat().refreshSetup();
  await ui.waitForText('chat', '#setup', 'Microsoft Foundry');
}

suite('providers in the Chat view', () => {
  // Signed and token-carrying requests only: the Bedrock signature is recomputed with the key's secret.
  const testServer = useTestServer({
    providers: {
      bedrock: { credentials: [{ accessKeyId: AWS_KEY_ID, secretAccessKey: AWS_SECRET }], acceptUnsigned: false },
      vertex: { projectId: PROJECT, acceptUnsigned: false },
      foundry: { apiKeys: [FOUNDRY_KEY], acceptUnsigned: false },
    },
  });
  // Background passes would take the scripted replies; each turn here is the conversation's.
  useSettings([
    ['engram.memory', 'extraction.enabled', false],
    ['engram.sessionNotes', 'enabled', false],
  ]);

  test('[ui] providers: Bedrock from the first-run screen, a rejected key, a SigV4-signed tool turn, then Vertex, then the API', async () => {
    const api = await freshChat();
    const server = testServer();
    const restoreEnv = keepEnv();
    const config = vscode.workspace.getConfiguration('engram');
    // An empty gcloud folder: ADC finds no login there and goes on to the metadata server.
    const gcloud = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-gcloud-'));
    server.setResponder(answerBackground);
    try {
      process.env.AWS_ACCESS_KEY_ID = AWS_KEY_ID;
      process.env.AWS_SECRET_ACCESS_KEY = AWS_SECRET;
      process.env.AWS_REGION = REGION;
      await showFirstRun(api);
      assert.match(
        await ui.text('chat', '#setup'),
        /Anthropic API key[\s\S]*Amazon Bedrock[\s\S]*Google Vertex AI[\s\S]*Microsoft Foundry[\s\S]*offline demo/,
      );
      await chatInBothThemes('chat-first-run-providers');

      // "Amazon Bedrock…" asks for the region, prefilled from AWS_REGION; Enter keeps it.
      await config.update('bedrock.baseUrl', server.url, vscode.ConfigurationTarget.Global);
      await ui.click('chat', '#setup-bedrock');
      await ui.acceptInputBox('AWS region for Amazon Bedrock');
      await waitUntil(
        'the provider setting',
        () => vscode.workspace.getConfiguration('engram').get('provider') === 'bedrock',
      );
      assert.equal(vscode.workspace.getConfiguration('engram').get('bedrock.region'), REGION);
      await waitUntil('the first-run screen to go', async () => (await ui.count('chat', '#setup')) === 0);
      await ui.waitForText('chat', '#model-picker', 'Bedrock');
      // A key AWS does not know: the chat says so, names the login command, and offers how to log in.
      process.env.AWS_ACCESS_KEY_ID = 'AKIAENGRAMUNKNOWN001';
      let sent = server.requests.length;
      await sendFromUi('what is in src/greet.js?');
      await ui.waitForText('chat', '.item-notice', 'aws sso login', 30_000);
      assert.match(await ui.text('chat', '.item-notice'), /Amazon Bedrock: AWS did not accept the credentials/);
      assert.doesNotMatch(await ui.text('chat', '.item-notice'), /engram-test-secret/, 'no secret in the message');
      await ui.waitForText('chat', '.item-notice .notice-action', 'How to Log In');
      const shot = await ui.screenshot('chat-bedrock-rejected-key');
      assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
      await ui.click('chat', '.item-notice .notice-action vscode-button');
      assert.equal(server.requests[sent]?.status, 403);
      await waitUntil('the failed turn to end', () => !api.chat().snapshot().busy);

      // With the right key, Retry sends it again: a tool turn (Read, then the answer), each request signed.
      process.env.AWS_ACCESS_KEY_ID = AWS_KEY_ID;
      server.enqueue(
        { content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'src/greet.js' } }] },
        { content: [{ type: 'text', text: 'Bedrock read greet.js.' }] },
      );
      sent = server.requests.length;
      await ui.click('chat', '.item-turn.is-last .light-button');
      await ui.waitForText('chat', '.item-assistant', 'Bedrock read greet.js.', 30_000);
      await waitUntil('the Bedrock turn to end', () => !api.chat().snapshot().busy);
      const bedrock = server.requests.slice(sent).filter((r) => !answerBackground(r.body));
      assert.equal(bedrock.length, 2, 'the tool call and the answer');
      for (const r of bedrock) {
        assert.equal(r.status, 200, r.error);
        assert.equal(r.provider, 'bedrock');
        assert.equal(r.path, '/model/us.anthropic.claude-sonnet-4-6/invoke-with-response-stream');
        assert.match(
          r.headers.authorization ?? '',
          new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_KEY_ID}/\\d{8}/${REGION}/bedrock/aws4_request, `),
        );
        assert.ok(r.headers['x-amz-date'], 'SigV4 dates the request');
        assert.equal(r.headers['x-api-key'], undefined, 'no Anthropic key goes to AWS');
        assert.equal((r.body as { model?: string }).model, undefined, 'Bedrock takes the model in the path');
      }
      assert.match(JSON.stringify(bedrock[1].body.messages), /tool_result/);
      const read = api
        .chat()
        .snapshot()
        .items.find((i) => i.kind === 'tool');
      assert.ok(read?.kind === 'tool' && read.status === 'done', 'the Read tool ran');
      await api.chat().idleForTests();

      // Vertex from the settings: the next message continues the same conversation there, with a token from
      // Application Default Credentials, which find no key file or gcloud login and ask the metadata server.
      process.env.GCE_METADATA_HOST = new URL(server.url).host;
      process.env.CLOUDSDK_CONFIG = gcloud;
      await config.update('vertex.baseUrl', `${server.url}/v1`, vscode.ConfigurationTarget.Global);
      await config.update('vertex.projectId', PROJECT, vscode.ConfigurationTarget.Global);
      await config.update('vertex.region', 'us-east5', vscode.ConfigurationTarget.Global);
      await config.update('provider', 'vertex', vscode.ConfigurationTarget.Global);
      await ui.waitForText('chat', '#model-picker', 'Vertex AI');
      // The model picker lists Vertex's names; the chosen one is kept as its API name, sent as Vertex's.
      await ui.click('chat', '#model-picker');
      await ui.quickPick('claude-haiku-4-5@20251001');
      await waitUntil(
        'the model setting',
        () => vscode.workspace.getConfiguration('engram').get('model') === 'claude-haiku-4-5-20251001',
      );
      server.enqueue({ content: [{ type: 'text', text: 'Vertex continues.' }] });
      sent = server.requests.length;
      await sendFromUi('and now on Vertex?');
      await ui.waitForText('chat', '.item-assistant', 'Vertex continues.', 30_000);
      await waitUntil('the Vertex turn to end', () => !api.chat().snapshot().busy);
      const vertex = server.requests.slice(sent).filter((r) => !answerBackground(r.body))[0];
      assert.equal(vertex.status, 200, vertex.error);
      assert.equal(
        vertex.path,
        `/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict`,
      );
      assert.match(vertex.headers.authorization ?? '', /^Bearer \S+$/);
      assert.ok(
        server.metadataRequests.some((p) => p.endsWith('/token')),
        'ADC asked the metadata server',
      );
      assert.equal(vertex.headers['x-api-key'], undefined);
      assert.deepEqual(
        vertex.body.messages.map((m) => m.role),
        ['user', 'assistant', 'user', 'assistant', 'user'],
        'the conversation so far went along',
      );
      assert.equal(lastUserText(vertex.body), 'and now on Vertex?');
      await api.chat().idleForTests();

      // Unset, with no CLAUDE_CODE_USE_* in the environment: the Anthropic API again.
      restoreEnv();
      await resetProviderSettings();
      await waitUntil(
        'the model button without a cloud',
        async () => !/Bedrock|Vertex/.test(await ui.text('chat', '#model-picker')),
      );
      server.enqueue({ content: [{ type: 'text', text: 'Back on the API.' }] });
      sent = server.requests.length;
      await sendFromUi('and on the API?');
      await ui.waitForText('chat', '.item-assistant', 'Back on the API.', 30_000);
      const back = server.requests[sent];
      assert.equal(back.path, '/v1/messages');
      assert.equal(back.provider, 'anthropic');
      // The key goes as x-api-key, or as a bearer token to a gateway (ANTHROPIC_BASE_URL here).
      assert.ok(
        back.headers['x-api-key'] === 'test-key' || back.headers.authorization === 'Bearer test-key',
        'the Anthropic API key is back',
      );
      assert.equal(back.headers['x-amz-date'], undefined);
      assert.equal(server.requests[sent].body.messages.length, 7);
      await waitUntil('the last turn to end', () => !api.chat().snapshot().busy);
    } finally {
      restoreEnv();
      fs.rmSync(gcloud, { recursive: true, force: true });
      server.setResponder(undefined);
      await resetProviderSettings();
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await vscode.commands.executeCommand('notifications.clearAll');
      await api.chat().refreshSetup();
    }
  });

  test('[ui] providers: Microsoft Foundry from the first-run screen, with the key in ANTHROPIC_FOUNDRY_API_KEY', async () => {
    const api = await freshChat();
    const server = testServer();
    const restoreEnv = keepEnv();
    const config = vscode.workspace.getConfiguration('engram');
    server.setResponder(answerBackground);
    try {
      process.env.ANTHROPIC_FOUNDRY_API_KEY = FOUNDRY_KEY;
      await showFirstRun(api);
      // With the endpoint already set there is nothing to ask: the choice writes the provider at once.
      await config.update('foundry.baseUrl', `${server.url}/anthropic`, vscode.ConfigurationTarget.Global);
      await ui.click('chat', '#setup-foundry');
      await waitUntil(
        'the provider setting',
        () => vscode.workspace.getConfiguration('engram').get('provider') === 'foundry',
      );
      await waitUntil('the first-run screen to go', async () => (await ui.count('chat', '#setup')) === 0);
      await ui.waitForText('chat', '#model-picker', 'claude-sonnet-4-6 · Foundry');
      server.enqueue({ content: [{ type: 'text', text: 'Foundry answers.' }] });
      const sent = server.requests.length;
      await sendFromUi('hello from Foundry');
      await ui.waitForText('chat', '.item-assistant', 'Foundry answers.', 30_000);
      const foundry = server.requests.slice(sent).filter((r) => !answerBackground(r.body))[0];
      assert.equal(foundry.status, 200, foundry.error);
      assert.equal(foundry.provider, 'foundry');
      assert.equal(foundry.path, '/anthropic/v1/messages');
      assert.equal(foundry.body.model, 'claude-sonnet-4-6');
      await waitUntil('the Foundry turn to end', () => !api.chat().snapshot().busy);
    } finally {
      restoreEnv();
      server.setResponder(undefined);
      await resetProviderSettings();
      await api.chat().refreshSetup();
    }
  });

  test("[ui] providers: Claude Code's ANTHROPIC_MODEL picks the model until one is chosen in the settings", async () => {
    const api = await freshChat();
    const server = testServer();
    const config = vscode.workspace.getConfiguration('engram');
    const before = process.env.ANTHROPIC_MODEL;
    try {
      process.env.ANTHROPIC_MODEL = 'claude-haiku-4-5-20251001';
      // The environment is read with the settings: any change of them reads it again.
      await config.update('vertex.region', 'us-east5', vscode.ConfigurationTarget.Global);
      await ui.waitForText('chat', '#model-picker', 'claude-haiku-4-5-20251001');
      server.enqueue({ content: [{ type: 'text', text: 'Haiku here.' }] });
      const sent = server.requests.length;
      await sendFromUi('which model?');
      await ui.waitForText('chat', '.item-assistant', 'Haiku here.', 30_000);
      assert.equal(server.requests[sent]?.body.model, 'claude-haiku-4-5-20251001');
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy);
      // A model set in the settings beats the environment.
      await config.update('model', 'claude-sonnet-4-6', vscode.ConfigurationTarget.Global);
      await ui.waitForText('chat', '#model-picker', 'claude-sonnet-4-6');
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_MODEL;
      else process.env.ANTHROPIC_MODEL = before;
      await resetProviderSettings();
    }
  });

  test('[ui] [zh-cn] providers: the first-run screen with the clouds, in Simplified Chinese', async () => {
    const api = await freshChat();
    const restoreEnv = keepEnv();
    try {
      await showFirstRun(api);
      await ui.waitForText('chat', '#setup', '通过你的云平台使用 Claude');
      assert.match(await ui.text('chat', '#setup'), /Amazon Bedrock[\s\S]*Google Vertex AI[\s\S]*Microsoft Foundry/);
      const shot = await ui.screenshot('chat-first-run-providers-zh-cn');
      assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
    } finally {
      restoreEnv();
      await api.chat().refreshSetup();
    }
  });
});
