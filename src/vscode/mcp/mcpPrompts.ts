// What Engram asks the person about MCP servers: whether a server a repository ships may start (a modal
// naming the server, its command line or URL and the file it came from), and the answer to a
// `.vscode/mcp.json` input (`${input:id}`), asked in an input box the first time the server starts and kept
// in Secret Storage per project and input, so it is asked once. A port, so the host tests can answer
// them: VS Code refuses modal dialogs while extension tests run.
import * as vscode from 'vscode';
import { showHiddenChars } from '../../protocol/hiddenChars';

/** A server waiting for approval, as the question shows it. */
export interface McpApprovalQuestion {
  name: string;
  /** The command line or URL, secrets masked. */
  target: string;
  file?: string;
}

export interface McpPrompts {
  /** True when the person allowed the server to start in this project. */
  approve(question: McpApprovalQuestion): Promise<boolean>;
  /** The answer to one input of a server; undefined when the person cancelled. */
  input(server: string, input: { id: string; description?: string; password?: boolean }): Promise<string | undefined>;
}

const vscodePrompts: McpPrompts = {
  async approve(q) {
    const allow = vscode.l10n.t('Allow');
    const detail = [
      q.file ? vscode.l10n.t('Defined in {0}', q.file) : '',
      q.target,
      vscode.l10n.t(
        'It runs with your permissions. Allow only a server you trust; if its entry changes, Engram asks again.',
      ),
    ]
      .filter(Boolean)
      .join('\n\n');
    const answer = await vscode.window.showWarningMessage(
      // Names and commands come from the repository: a right-to-left override there is written out.
      showHiddenChars(vscode.l10n.t('Start the MCP server "{0}" from this project?', q.name)),
      { modal: true, detail: showHiddenChars(detail) },
      allow,
      vscode.l10n.t("Don't allow"),
    );
    return answer === allow;
  },
  input(server, input) {
    return Promise.resolve(
      vscode.window.showInputBox({
        title: vscode.l10n.t('MCP server {0}: {1}', server, input.id),
        prompt: input.description ?? input.id,
        password: input.password === true,
        ignoreFocusOut: true,
      }),
    );
  },
};

let current: McpPrompts = vscodePrompts;

/** The prompts in use (VS Code's own, unless a host test replaced them). */
export function mcpPrompts(): McpPrompts {
  return current;
}

/** TEST-ONLY HOOK: answers the approval modal and the input boxes. Returns a function that puts VS Code's back. */
export function replaceMcpPromptsForTests(prompts: McpPrompts): () => void {
  current = prompts;
  return () => {
    current = vscodePrompts;
  };
}

/** Where an input's answer is kept: per project and input id. */
function secretKey(projectRoot: string, id: string): string {
  return `engram.mcp.input:${projectRoot}:${id}`;
}

/**
 * The answers to `inputs` for `server`: each read from Secret Storage, else asked once and kept there.
 * Undefined when the person cancelled one (the server does not start, and says so).
 */
export async function answerInputs(
  secrets: vscode.SecretStorage,
  projectRoot: string,
  server: string,
  inputs: ReadonlyArray<{ id: string; description?: string; password?: boolean }>,
): Promise<Record<string, string> | undefined> {
  const answers: Record<string, string> = {};
  for (const input of inputs) {
    const key = secretKey(projectRoot, input.id);
    let value = await secrets.get(key);
    if (value === undefined) {
      value = await current.input(server, input);
      if (value === undefined) return undefined;
      await secrets.store(key, value);
    }
    answers[input.id] = value;
  }
  return answers;
}
