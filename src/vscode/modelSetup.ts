// The model a chat talks to: the settings' model and base URL, the API key from Secret Storage (or the
// environment), or the built-in offline demo model, started on first use and closed on deactivate().
import * as vscode from 'vscode';
import { resolveModelConfig, type ModelConfig } from '../core/llm/modelConfig';
import type { Logger } from '../core/ports';
import type { TestServer } from '../server/anthropicTestServer';
import { API_KEY_SECRET } from './apiKey';
import { loadEngine } from './loadEngine';
import { settings } from './settings';

export interface ResolvedModel extends ModelConfig {
  offlineDemo: boolean;
}

let demoServer: Promise<TestServer> | undefined;

/** The built-in offline demo model: the project's Anthropic-compatible test server, in this process. */
function offlineDemoServer(logger: Logger): Promise<TestServer> {
  demoServer ??= loadEngine().startTestServer({ demo: true }).then((server) => {
    logger.info(`Offline demo model listening on ${server.url}`);
    return server;
  });
  return demoServer;
}

/** Closes the offline demo server if one was started (deactivate, tests). */
export async function disposeOfflineDemo(): Promise<void> {
  const server = demoServer;
  demoServer = undefined;
  await (await server?.catch(() => undefined))?.close();
}

/** Whether the chat runs on the offline demo model. */
export function usesOfflineDemo(): boolean {
  return settings().offlineDemo || process.env.ENGRAM_OFFLINE_DEMO === '1';
}

export async function resolveModel(secrets: vscode.SecretStorage, logger: Logger): Promise<ResolvedModel> {
  const s = settings();
  const given = { model: s.model, maxOutputTokens: s.maxOutputTokens, baseUrl: s.baseUrl };
  if (s.offlineDemo) {
    const server = await offlineDemoServer(logger);
    return { ...resolveModelConfig({ ...given, baseUrl: server.url }, {}, 'offline-demo'), offlineDemo: true };
  }
  const secret = await secrets.get(API_KEY_SECRET);
  return { ...resolveModelConfig(given, process.env, secret), offlineDemo: process.env.ENGRAM_OFFLINE_DEMO === '1' };
}
