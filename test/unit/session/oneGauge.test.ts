// One gauge (issue: "what a newcomer still trips on", item 6): on a long transcript the Chat view and the
// inspector said 96% (all of it estimated) where `engram gauge` said 113% (the API's last report plus
// what came after). A resumed session now starts from that report too, so the chat, the status bar and
// the inspector (the live gauge), the inspector on a session read from disk, and `engram gauge` give one
// figure. On transcripts Claude Code wrote, with the usage its server reported (../shared/fixtures).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { projectDir } from '../../../src/core/conversation/projectKey';
import { gaugeState } from '../../../src/core/inspection/contextSnapshot';
import { gaugeTranscript, measureTranscript } from '../../../src/core/inspection/transcriptInspection';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { countTokens, ensureTokenizer } from '../../../src/core/tokens/tokenizer';
import { CC_FIXTURES } from '../conversation/testSupport';
import { runEngramInProcess } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();
const FIXTURES = [
  'auto-compact-window60000.transcript.jsonl',
  'sm-compact.transcript.jsonl',
  'tool-multiturn-before-compact.jsonl',
  'tool-multiturn-after-manual-compact.jsonl',
];

describe('one gauge', () => {
  for (const fixture of FIXTURES) {
    const title =
      `${fixture}: the resumed session, the inspector from disk and engram gauge give the same figure, ` +
      'from the last usage report';
    it(title, async () => {
      await ensureTokenizer();
      const cwd = tempDir('engram-gauge-ws-');
      const dataDir = tempDir('engram-gauge-data-');
      const sessionId = 'resumed-from-claude-code';
      const file = path.join(projectDir(dataDir, cwd), `${sessionId}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.copyFileSync(path.join(CC_FIXTURES, fixture), file);
      const store = new SettingsStore({ 'sessionNotes.enabled': false, 'memory.enabled': false });

      const cli = await runEngramInProcess(['gauge', file, '--json'], { cwd, env: {} });
      assert.equal(cli.code, 0, cli.stderr);
      const printed = JSON.parse(cli.stdout) as {
        usedTokens: number;
        estimatedTokens: number;
        turns: Array<{ reportedTokens: number }>;
      };
      assert.ok(printed.turns.length > 0, 'the fixture has usage reports');
      const fromDisk = (await measureTranscript(file, store.settings, countTokens)).gauge.usedTokens;
      assert.equal((await gaugeTranscript(file, store.settings)).gauge.usedTokens, printed.usedTokens);

      const session = await openEngramSession(
        {
          cwd,
          dataDir,
          resumeSessionId: sessionId,
          client: new AnthropicModelClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' }),
          trusted: true,
          permissionPrompt: { ask: async () => 'allowOnce' },
          version: '0.0.0-test',
          entrypoint: 'test',
        },
        store,
      );
      try {
        // What the Chat view, the status bar and the inspector show for the open session (sessionGauge in
        // core/host/conversationDisplay.ts).
        const live = gaugeState(session.compaction.gauge, session.agent, session.settings).usedTokens;
        assert.deepEqual({ live, fromDisk }, { live: printed.usedTokens, fromDisk: printed.usedTokens });
        // The figure is the API's: the last report, plus the engine's count of what came after it only.
        assert.ok(
          printed.usedTokens - printed.estimatedTokens >= printed.turns[printed.turns.length - 1].reportedTokens,
        );
      } finally {
        await session.finish();
      }
    });
  }
});
