// Steps the inspector's host tests share: answering its prompts, opening a group of its memory tree.
import type { EngramApi } from '../../src/extension';
import type { InspectorController } from '../../src/vscode/inspector/inspectorController';
import { ui } from './ui';

/**
 * VS Code refuses modal dialogs (and shows no notification toasts) while extension tests run, so the
 * inspector's prompts are answered here, through its test-only hook; every question asked is recorded.
 */
export function answerPrompts(
  api: EngramApi,
  answers: { confirm: boolean[]; undo?: Promise<boolean> },
): { asked: string[]; restore: () => void } {
  const asked: string[] = [];
  const controller = api.inspector()!.source as InspectorController;
  const restore = controller.replacePromptsForTests({
    confirm: async (message, detail, action) => {
      asked.push(`confirm: ${message} | ${detail} | ${action}`);
      return answers.confirm.shift() ?? false;
    },
    offerUndo: async (message) => {
      asked.push(`undo: ${message}`);
      return answers.undo ?? false;
    },
  });
  return { asked, restore };
}

/** Opens a group of the memory tree (a click on an open group would close it). */
export async function expandGroup(key: string): Promise<void> {
  await ui.text('inspector', `[data-key="${key}"]`);
  const expanded = await ui.evaluate<string | null>(
    'inspector',
    `document.querySelector('[data-key="${key}"]')?.getAttribute('aria-expanded') ?? null`,
  );
  if (expanded === 'false') await ui.click('inspector', `[data-key="${key}"] > .tree-row`);
}
