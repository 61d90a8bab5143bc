// An Engram session (the one both hosts drive) on the test server, as the session tests open it: trusted,
// every permission allowed, with the settings the test gives.
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { EngramSession } from '../../../src/core/session/engramSession';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { type RawSettings } from '../../../src/core/settings/engramSettings';
import { SettingsStore } from '../../../src/core/settings/settingsStore';

export function openTestSession(
  serverUrl: string,
  where: { cwd: string; dataDir: string },
  raw: RawSettings,
  resumeSessionId?: string,
): Promise<EngramSession> {
  return openEngramSession(
    {
      ...where,
      ...(resumeSessionId ? { resumeSessionId } : {}),
      client: new AnthropicModelClient({ apiKey: 'k', baseUrl: serverUrl }),
      trusted: true,
      permissionPrompt: { ask: async () => 'allowOnce' },
      version: '0.0.0-test',
      entrypoint: 'test',
    },
    new SettingsStore(raw),
  );
}
