import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { resolveModelConfig, type ModelConfig } from '../core/llm/modelConfig';
import type { Logger } from '../core/ports';
import type { TestServer } from '../server/anthropicTestServer';
import { API_KEY_SECRET } from './apiKey';
import { loadEngine } from './loadEngine';

/** Where transcripts, notes and memory live: the setting, else ENGRAM_DATA_DIR, else ~/.engram. */
export function dataDir(): string {
  const setting = vscode.workspace.getConfiguration('engram').get<string>('dataDir', '').trim();
  const dir = setting || process.env.ENGRAM_DATA_DIR || path.join(os.homedir(), '.engram');
  return dir.startsWith('~') ? path.join(os.homedir(), dir.slice(1)) : path.resolve(dir);
}

/** The folder the agent works in: the first workspace folder (the home folder when none is open). */
export function workspaceCwd(): string {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder ? folder.uri.fsPath : os.homedir();
}

export interface ResolvedModel extends ModelConfig {
  contextWindow: number;
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

export async function disposeOfflineDemo(): Promise<void> {
  const server = await demoServer;
  demoServer = undefined;
  await server?.close();
}

export async function resolveModel(secrets: vscode.SecretStorage, logger: Logger): Promise<ResolvedModel> {
  const config = vscode.workspace.getConfiguration('engram');
  const contextWindow = config.get<number>('contextWindow', 200_000);
  const settings = {
    model: config.get<string>('model'),
    maxOutputTokens: config.get<number>('maxOutputTokens'),
    baseUrl: config.get<string>('baseUrl'),
  };
  if (config.get<boolean>('offlineDemo', false)) {
    const server = await offlineDemoServer(logger);
    return { ...resolveModelConfig({ ...settings, baseUrl: server.url }, {}, 'offline-demo'), contextWindow, offlineDemo: true };
  }
  const secret = await secrets.get(API_KEY_SECRET);
  const resolved = resolveModelConfig(settings, process.env, secret);
  return { ...resolved, contextWindow, offlineDemo: process.env.ENGRAM_OFFLINE_DEMO === '1' };
}
