import type {
  ChatCommand,
  ChatItem,
  PermissionChoice,
  PermissionDiff,
  RecalledMemory,
  TurnTokens,
} from '../../src/protocol/messages';
import { button, h, icon, lightButton } from '../shared/components';
import { groupDigits } from '../shared/gauge';
import { renderMarkdown } from '../shared/markdown';
import { renderContext, renderHelp } from './localAnswers';
import { changesLine, type CheckpointHandlers, rewindActions } from './checkpoints';
import { pinControl } from './pins';
import { t, type StringKey } from './strings';

export interface ItemHandlers extends CheckpointHandlers {
  permission(requestId: string, choice: PermissionChoice): void;
  runCommand(command: ChatCommand): void;
  openPath(path: string): void;
  notRelevant(itemId: string, file: string, undo: boolean): void;
  code(action: 'copy' | 'insert', code: string): void;
  retry(): void;
  edit(text: string): void;
  /** Pins the message, or `text` selected in it. */
  pin(itemId: string, text?: string): void;
}

const ACTIONS: Record<string, { label: StringKey; command: ChatCommand }> = {
  setApiKey: { label: 'actionSetApiKey', command: 'setApiKey' },
  reviewMemories: { label: 'actionReviewMemories', command: 'reviewMemories' },
  showLog: { label: 'actionShowLog', command: 'showLog' },
  openInspector: { label: 'actionOpenInspector', command: 'openInspector' },
  openMemory: { label: 'actionOpenMemory', command: 'openMemory' },
  manageMcpServers: { label: 'actionManageMcpServers', command: 'manageMcpServers' },
  checkMemoryHealth: { label: 'actionCheckMemoryHealth', command: 'checkMemoryHealth' },
  cloudLogin: { label: 'actionCloudLogin', command: 'cloudLogin' },
};

const TOOL_STATUS_ICON: Record<string, string> = {
  running: 'loading codicon-modifier-spin',
  done: 'check',
  error: 'error',
  denied: 'circle-slash',
  waiting: 'question',
};

/** One chat item as DOM; `data-item` lets updates replace it in place. */
export function renderItem(item: ChatItem, handlers: ItemHandlers): HTMLElement {
  const node = renderBody(item, handlers);
  node.dataset.item = item.id;
  node.dataset.kind = item.kind;
  return node;
}

/** A reply's Markdown, with Copy and Insert on each code block. */
export function renderReply(text: string, handlers: ItemHandlers): DocumentFragment {
  const fragment = renderMarkdown(text);
  for (const pre of Array.from(fragment.querySelectorAll('pre'))) {
    // The renderer ends a fenced block with a newline that is not part of the code.
    const code = () => (pre.querySelector('code')?.textContent ?? pre.textContent ?? '').replace(/\n$/, '');
    const bar = h(
      'div',
      { class: 'code-actions' },
      lightButton(t('copy'), { icon: 'copy', title: t('copyCode'), onClick: () => handlers.code('copy', code()) }),
      lightButton(t('insert'), {
        icon: 'insert',
        title: t('insertCode'),
        onClick: () => handlers.code('insert', code()),
      }),
    );
    const wrap = h('div', { class: 'code-block' });
    pre.replaceWith(wrap);
    wrap.append(bar, pre);
  }
  return fragment;
}

function renderBody(item: ChatItem, handlers: ItemHandlers): HTMLElement {
  switch (item.kind) {
    case 'user':
      return h(
        'div',
        { class: `item item-user${item.pinned ? ' pinned' : ''}` },
        h(
          'div',
          { class: 'item-role' },
          t('you'),
          lightButton(t('edit'), {
            icon: 'edit',
            title: t('editTitle'),
            look: 'link',
            onClick: () => handlers.edit(item.text),
          }),
          pinControl(item, handlers.pin),
        ),
        h('div', { class: 'item-text' }, item.text),
        item.files?.length
          ? h('div', { class: 'item-files' }, icon('file'), ` ${t('attached', item.files.join(', '))}`)
          : null,
        rewindActions(item, handlers),
      );
    case 'assistant': {
      const body = h('div', { class: 'markdown' });
      body.append(renderReply(item.text, handlers));
      return h(
        'div',
        { class: `item item-assistant${item.streaming ? ' streaming' : ''}${item.pinned ? ' pinned' : ''}` },
        h('div', { class: 'item-role' }, t('engram'), item.streaming ? null : pinControl(item, handlers.pin)),
        body,
      );
    }
    case 'thinking':
      return h('details', { class: 'item item-thinking' }, h('summary', {}, t('thinking')), h('pre', {}, item.text));
    case 'tool':
      return h(
        'details',
        { class: `item item-tool tool-${item.status}` },
        h(
          'summary',
          { 'aria-label': t('toolLabel', item.name, item.summary, item.status) },
          icon(TOOL_STATUS_ICON[item.status] ?? 'tools'),
          h('span', { class: 'tool-name' }, item.name),
          h('span', { class: 'tool-summary' }, summaryAfterName(item.name, item.summary)),
        ),
        h('div', { class: 'tool-section-title' }, t('input')),
        h('pre', { class: 'tool-input' }, item.input),
        item.result === undefined ? null : h('div', { class: 'tool-section-title' }, t('result')),
        item.result === undefined ? null : h('pre', { class: 'tool-result' }, item.result),
      );
    case 'permission': {
      // One answer per prompt: the first click disables the card's buttons until the host redraws it.
      const answer = (choice: PermissionChoice) => () => {
        for (const b of buttons.querySelectorAll('vscode-button')) b.setAttribute('disabled', '');
        handlers.permission(item.id, choice);
      };
      const buttons: HTMLElement = item.answered
        ? h('div', { class: 'permission-answer' }, answerText(item.answered))
        : h(
            'div',
            { class: 'permission-buttons' },
            button(t('allowOnce'), { id: `allow-once-${item.id}`, onClick: answer('allowOnce') }),
            button(t('allowSession', item.toolName), {
              id: `allow-session-${item.id}`,
              appearance: 'secondary',
              onClick: answer('allowSession'),
            }),
            item.suggestedRule === undefined
              ? null
              : button(t('allowAlways', shortRule(item.suggestedRule)), {
                  id: `allow-always-${item.id}`,
                  appearance: 'secondary',
                  title: t('allowAlwaysTitle', item.suggestedRule),
                  onClick: answer('allowAlways'),
                }),
            button(t('deny'), { id: `deny-${item.id}`, appearance: 'secondary', onClick: answer('deny') }),
          );
      return h(
        'div',
        { class: 'item item-permission', role: 'group', 'aria-label': t('permissionFor', item.toolName) },
        h(
          'div',
          { class: 'permission-title' },
          icon('shield'),
          ` ${t(permissionTitle(item.answered), item.mcp ? `${item.mcp.server} · ${item.mcp.tool}` : item.toolName)}`,
        ),
        h('pre', { class: 'permission-summary' }, item.summary),
        item.mcp ? h('div', { class: 'tool-section-title' }, t('input')) : null,
        item.mcp ? h('pre', { class: 'permission-args' }, item.mcp.args) : null,
        item.diff ? renderDiff(item.diff) : null,
        buttons,
      );
    }
    case 'notice': {
      const action = item.action ? ACTIONS[item.action] : undefined;
      return h(
        'div',
        { class: `item item-notice notice-${item.level}`, role: item.level === 'error' ? 'alert' : 'note' },
        icon(item.level === 'error' ? 'error' : item.level === 'warning' ? 'warning' : 'info'),
        h('span', {}, ` ${item.text}`),
        item.link ? ' ' : null,
        item.link ? linkButton(item.link, handlers) : null,
        action
          ? h(
              'div',
              { class: 'notice-action' },
              button(t(action.label), { appearance: 'secondary', onClick: () => handlers.runCommand(action.command) }),
            )
          : null,
      );
    }
    case 'recall':
      return h(
        'div',
        { class: 'item item-recall', role: 'group', 'aria-label': t('recalledTitle') },
        ...item.files.map((memory) => recalledLine(item.id, memory, handlers)),
      );
    case 'turn':
      return h(
        'div',
        { class: 'item item-turn' },
        item.tokens ? tokensLine(item.tokens) : h('span', { class: 'turn-tokens' }, t('noModelCall')),
        lightButton(t('retry'), {
          icon: 'refresh',
          title: t('retryTitle'),
          look: 'link',
          onClick: () => handlers.retry(),
        }),
      );
    case 'help':
      return renderHelp();
    case 'context':
      return renderContext(item.gauge);
    case 'instructions':
      return instructionsLine(item, handlers);
    case 'changes':
      return changesLine(item, handlers);
  }
}

/** "Instructions: CLAUDE.md, AGENTS.md", each a link to the file; in an untrusted workspace, why there are none. */
function instructionsLine(item: Extract<ChatItem, { kind: 'instructions' }>, handlers: ItemHandlers): HTMLElement {
  const links = item.files.flatMap((f, i) => [i > 0 ? ', ' : ' ', linkButton(f, handlers)]);
  return h(
    'div',
    { class: 'item item-instructions', role: 'note' },
    icon('book'),
    ` ${t('instructionsLine')}`,
    ...links,
    item.skipped ? h('span', { class: 'instructions-skipped' }, ` ${t('instructionsSkipped')}`) : null,
  );
}

/** "1,234 in · 56 out · 80% from the cache": input counts fresh, cached and cache-written tokens alike. */
function tokensLine(tokens: TurnTokens): HTMLElement {
  const input = tokens.input + tokens.cacheRead + tokens.cacheWrite;
  const share = input > 0 ? Math.round((tokens.cacheRead / input) * 100) : 0;
  return h(
    'span',
    {
      class: 'turn-tokens',
      title: t(
        'tokensTitle',
        groupDigits(input),
        groupDigits(tokens.input),
        groupDigits(tokens.cacheRead),
        groupDigits(tokens.cacheWrite),
        groupDigits(tokens.output),
      ),
    },
    t('tokens', groupDigits(input), groupDigits(tokens.output), `${share}%`),
  );
}

/** The change an edit would make: one line per row, coloured by class (the CSP allows no inline styles). */
function renderDiff(diff: PermissionDiff): HTMLElement {
  const mark = { add: '+', del: '-', ctx: ' ' } as const;
  const rows = diff.lines.map((line) =>
    h('div', { class: `diff-line diff-${line.kind}` }, `${mark[line.kind]} ${line.text}`),
  );
  const where = diff.startLine === undefined ? diff.path : t('diffAtLine', diff.path, String(diff.startLine));
  return h(
    'div',
    { class: 'permission-diff', role: 'region', 'aria-label': t('diffOf', diff.path) },
    h('div', { class: 'diff-path' }, where),
    diff.lines.length ? h('pre', { class: 'diff-body' }, ...rows) : h('div', { class: 'diff-more' }, t('diffNoChange')),
    diff.omitted > 0 ? h('div', { class: 'diff-more' }, t('diffOmitted', String(diff.omitted))) : null,
  );
}

/** The card's title: what it asks, or once answered, what was answered. */
function permissionTitle(answered: PermissionChoice | undefined): StringKey {
  if (answered === undefined) return 'wantsToRun';
  return answered === 'deny' ? 'wasDenied' : 'wasAllowed';
}

function answerText(choice: PermissionChoice): string {
  switch (choice) {
    case 'allowOnce':
      return t('allowedOnce');
    case 'allowSession':
      return t('allowedSession');
    case 'allowAlways':
      return t('allowedAlways');
    case 'deny':
      return t('denied');
  }
}

/** A rule short enough for a button's label (the full rule is its tooltip). */
function shortRule(rule: string): string {
  const oneLine = rule.replace(/\s+/g, ' ');
  return oneLine.length <= 48 ? oneLine : `${oneLine.slice(0, 47)}…`;
}

function linkButton(link: { label: string; path: string }, handlers: ItemHandlers): HTMLElement {
  // The space before a link stays outside it: the underline starts at the first letter.
  const a = h('a', { href: '#', class: 'notice-link', title: link.path }, link.label.trim());
  a.addEventListener('click', (event) => {
    event.preventDefault();
    handlers.openPath(link.path);
  });
  return a;
}

/** One recalled memory: its title and file, the words it matched, and Not relevant (or, once said, Undo). */
function recalledLine(itemId: string, memory: RecalledMemory, handlers: ItemHandlers): HTMLElement {
  const matched = memory.words.length > 0 ? t('recalledMatched', memory.words.join(', ')) : t('recalledNoWords');
  const stale = memory.stale?.join(', ') ?? '';
  const words = memory.staleSkipped
    ? t('recalledStaleSkipped', stale)
    : stale
      ? `${matched} · ${t('recalledStale', stale)}`
      : matched;
  const action = memory.staleSkipped
    ? null
    : memory.notRelevant
      ? lightButton(t('undo'), {
          icon: 'discard',
          look: 'link',
          onClick: () => handlers.notRelevant(itemId, memory.file, true),
        })
      : lightButton(t('notRelevant'), {
          icon: 'close',
          title: t('notRelevantTitle'),
          look: 'link',
          onClick: () => handlers.notRelevant(itemId, memory.file, false),
        });
  return h(
    'div',
    {
      class: `recall-line${memory.notRelevant || memory.staleSkipped ? ' recall-dropped' : ''}`,
      'data-file': memory.file,
    },
    icon('book'),
    h('span', { class: 'recall-title' }, ` ${memory.title}`),
    h('span', { class: 'recall-file' }, ` ${memory.file}`),
    h('span', { class: 'recall-words' }, memory.notRelevant ? t('notRelevantDone') : words),
    action,
  );
}

/** A tool's summary starts with its name ("Read README.md"), which the card already shows beside it. */
function summaryAfterName(name: string, summary: string): string {
  return summary.startsWith(`${name} `) ? summary.slice(name.length + 1) : summary;
}
