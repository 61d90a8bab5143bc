// Engram's memory as VS Code language model tools (package.json `languageModelTools`), so Copilot Chat's
// agent mode and other extensions in this window can search it and add to it: engram_search_memory runs
// the chat's recall over the workspace's memory, engram_remember saves through the chat's writer (secret
// scan, review queue, MEMORY.md line) after the person confirms the text. Both run the same core
// functions as `engram mcp`, loaded with the engine chunk on first use (activation only registers them).
import * as vscode from 'vscode';
import { loadEngine } from './loadEngine';
import { dataDir, settings, workspaceCwd, workspaceTrusted } from './settings';

export const SEARCH_TOOL = 'engram_search_memory';
export const REMEMBER_TOOL = 'engram_remember';
/** The client name a memory saved through these tools records (the API does not name the caller). */
const CLIENT = 'vscode-lm';

interface SearchInput {
  query: string;
  limit?: number;
}

interface RememberInput {
  text: string;
  type?: 'user' | 'feedback' | 'project' | 'reference';
  title?: string;
}

/** The workspace's memory, with team memory when it is on and the workspace is trusted (as the chat has it). */
function scope() {
  const s = settings();
  if (!s.memory.enabled)
    throw new Error("Engram's memory is turned off in this window (setting engram.memory.enabled).");
  return loadEngine().memoryScope(dataDir(), workspaceCwd(), {
    team: s.teamMemory.enabled && workspaceTrusted(),
    maxFiles: s.memory.recall.maxFiles,
  });
}

const searchTool: vscode.LanguageModelTool<SearchInput> = {
  prepareInvocation: (options) => ({
    invocationMessage: vscode.l10n.t('Searching Engram memory for "{0}"', options.input.query),
  }),
  async invoke(options) {
    const engine = loadEngine();
    const query = typeof options.input.query === 'string' ? options.input.query : '';
    if (query.trim() === '') throw new Error('Give a query: the question or task to search the memory for.');
    const matches = await engine.searchProjectMemory(await scope(), query, options.input.limit);
    return new vscode.LanguageModelToolResult([
      new vscode.LanguageModelTextPart(engine.describeMemoryMatches(query, matches)),
    ]);
  },
};

const rememberTool: vscode.LanguageModelTool<RememberInput> = {
  // Every write is shown to the person first, with the exact text: nothing lands in memory unseen.
  prepareInvocation: (options) => {
    const message = new vscode.MarkdownString();
    message.appendMarkdown(
      vscode.l10n.t(
        "Save this to the project's Engram memory (type {0})? Engram and other agents will read it in later sessions.",
        options.input.type ?? 'project',
      ),
    );
    message.appendMarkdown('\n\n');
    message.appendCodeblock(String(options.input.text ?? ''), 'markdown');
    return {
      invocationMessage: vscode.l10n.t('Saving to Engram memory'),
      confirmationMessages: { title: vscode.l10n.t('Save to Engram memory?'), message },
    };
  },
  async invoke(options) {
    const engine = loadEngine();
    const { text, type, title } = options.input;
    // A refusal (a secret, empty text) rejects with words the model can act on; VS Code hands them over.
    const outcome = await engine.rememberForClient(
      await scope(),
      { text, ...(type ? { type } : {}), ...(title ? { title } : {}), client: CLIENT, via: 'vscode-lm' },
      { review: settings().memory.extraction.review },
    );
    return new vscode.LanguageModelToolResult([
      new vscode.LanguageModelTextPart(engine.describeRememberOutcome(outcome)),
    ]);
  },
};

/** Registers both tools; the disposables unregister them. */
export function registerLmTools(): vscode.Disposable[] {
  // Older hosts (or forks) without the language model API: nothing to register.
  if (typeof vscode.lm?.registerTool !== 'function') return [];
  return [vscode.lm.registerTool(SEARCH_TOOL, searchTool), vscode.lm.registerTool(REMEMBER_TOOL, rememberTool)];
}
