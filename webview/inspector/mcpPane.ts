// The MCP servers section (issue 30): each server with where it was defined and which definition wins,
// whether it runs and why not, its tools with the tokens each adds to every request, and its buttons
// (Approve, Turn off / on for this project, Restart, a tool's Turn off / on); then the permission rules in
// force and where each came from. Names, commands, descriptions and stderr are data: shown as text.
import type { McpServerView, McpServersView, McpToolView, PermissionRuleView } from '../../src/protocol/messages';
import { h, icon, lightButton } from '../shared/components';
import { clock, num } from './format';
import { t, tn, type StringKey } from './strings';

/** What the section's buttons ask the host; absent for a source on disk (nothing to change there). */
export interface McpActions {
  approve(server: string): void;
  setServer(server: string, on: boolean): void;
  setTool(server: string, tool: string, on: boolean): void;
  restart(server: string): void;
  open(path: string): void;
}

const STATE: Record<McpServerView['state'], StringKey> = {
  needsApproval: 'mcpStateNeedsApproval',
  disabled: 'mcpStateDisabled',
  untrusted: 'mcpStateUntrusted',
  starting: 'mcpStateStarting',
  ready: 'mcpStateReady',
  failed: 'mcpStateFailed',
  stopped: 'mcpStateStopped',
  notStarted: 'mcpStateNotStarted',
};

const SOURCE: Record<McpServerView['source'], StringKey> = {
  cli: 'mcpSourceCli',
  project: 'mcpSourceProject',
  vscode: 'mcpSourceVscode',
  setting: 'mcpSourceSetting',
  user: 'mcpSourceUser',
};

export function renderMcpPane(view: McpServersView, actions: McpActions | undefined): HTMLElement {
  const body = h('div', { id: 'mcp-body', class: 'mcp-pane' });
  if (view.servers.length === 0 && view.problems.length === 0) {
    body.append(h('p', { class: 'empty', id: 'mcp-empty' }, t('mcpNone')));
    return body;
  }
  body.append(h('p', { class: 'mcp-total', id: 'mcp-total' }, tn('mcpTotal', view.servers.length, num(view.tokens))));
  if (!view.trusted) body.append(h('p', { class: 'mcp-note', id: 'mcp-untrusted' }, t('mcpUntrustedNote')));
  for (const p of view.problems)
    body.append(
      h(
        'p',
        { class: 'gauge-warning mcp-problem', role: 'status' },
        icon('warning'),
        ' ',
        t('mcpProblem', p.server ?? t(SOURCE[p.source]), p.file ?? t(SOURCE[p.source]), p.message),
      ),
    );
  body.append(
    h('ul', { class: 'mcp-list', 'aria-label': t('paneMcp') }, ...view.servers.map((s) => serverRow(s, actions))),
  );
  return body;
}

function serverRow(s: McpServerView, actions: McpActions | undefined): HTMLElement {
  const id = cssId(s.name);
  // A file is named (and opens); the setting and inline --mcp-config JSON have none.
  const from = s.file
    ? h(
        'div',
        { class: 'mcp-from' },
        t('mcpFrom', t(SOURCE[s.source])),
        ' ',
        lightButton(s.file, { look: 'link', title: t('mcpOpenFile'), onClick: () => actions?.open(s.file!) }),
      )
    : h('div', { class: 'mcp-from' }, t('mcpFromOnly', t(SOURCE[s.source])));
  return h(
    'li',
    { class: `mcp-server mcp-${s.state}`, 'data-server': s.name, id: `mcp-server-${id}` },
    h(
      'div',
      { class: 'mcp-head' },
      icon(s.state === 'ready' ? 'plug' : s.state === 'failed' ? 'error' : 'debug-disconnect'),
      h('span', { class: 'mcp-name' }, s.name),
      h('span', { class: `badge mcp-state mcp-state-${s.state}` }, t(STATE[s.state])),
      s.state === 'ready'
        ? h('span', { class: 'mcp-meta' }, tn('mcpServerTokens', s.tools.length, num(s.tokens)))
        : null,
      ...serverButtons(s, id, actions),
    ),
    h('div', { class: 'mcp-target', title: s.target }, s.target),
    from,
    s.shadows.length > 0
      ? h('div', { class: 'mcp-shadow' }, t('mcpShadows', s.shadows.map((x) => t(SOURCE[x])).join(', ')))
      : null,
    s.failure
      ? h(
          'div',
          { class: 'mcp-failure', role: 'status' },
          h('div', {}, failureLine(s.failure)),
          s.failure.stderr.length > 0 ? h('pre', { class: 'mcp-stderr' }, s.failure.stderr.join('\n')) : null,
          h('div', { class: 'mcp-note' }, t('mcpRestartsOnUse')),
        )
      : null,
    s.tools.length > 0
      ? h(
          'ul',
          { class: 'mcp-tools', 'aria-label': t('mcpTools', s.name) },
          ...s.tools.map((x) => toolRow(s, x, actions)),
        )
      : null,
  );
}

function serverButtons(s: McpServerView, id: string, actions: McpActions | undefined): HTMLElement[] {
  if (!actions) return [];
  const out: HTMLElement[] = [];
  if (s.state === 'needsApproval')
    out.push(
      lightButton(t('mcpApprove'), {
        id: `mcp-approve-${id}`,
        icon: 'check',
        title: t('mcpApproveTitle'),
        onClick: () => actions.approve(s.name),
      }),
    );
  if (s.state === 'failed')
    out.push(
      lightButton(t('mcpRestart'), {
        id: `mcp-restart-${id}`,
        icon: 'debug-restart',
        onClick: () => actions.restart(s.name),
      }),
    );
  const on = s.state !== 'disabled';
  out.push(
    lightButton(on ? t('mcpTurnOff') : t('mcpTurnOn'), {
      id: `mcp-toggle-${id}`,
      look: 'link',
      title: on ? t('mcpTurnOffTitle') : t('mcpTurnOnTitle'),
      onClick: () => actions.setServer(s.name, !on),
    }),
  );
  return out;
}

function toolRow(s: McpServerView, tool: McpToolView, actions: McpActions | undefined): HTMLElement {
  return h(
    'li',
    { class: `mcp-tool${tool.disabled || tool.rejected ? ' mcp-tool-off' : ''}`, 'data-tool': tool.rawName },
    h('code', { class: 'mcp-tool-name', title: tool.name }, tool.rawName),
    h('span', { class: 'mcp-meta' }, t('mcpToolTokens', num(tool.tokens))),
    tool.rejected ? h('span', { class: 'badge badge-cut', title: tool.rejected }, t('mcpRejected')) : null,
    tool.disabled ? h('span', { class: 'badge' }, t('mcpToolOff')) : null,
    h('span', { class: 'mcp-tool-desc', title: tool.description }, tool.description),
    actions && !tool.rejected
      ? lightButton(tool.disabled ? t('mcpTurnOn') : t('mcpTurnOff'), {
          id: `mcp-tool-${cssId(s.name)}-${cssId(tool.rawName)}`,
          look: 'link',
          onClick: () => actions.setTool(s.name, tool.rawName, tool.disabled),
        })
      : null,
  );
}

/** Why it failed and when; the exit code unless the reason already names it. */
function failureLine(f: NonNullable<McpServerView['failure']>): string {
  const code = f.exitCode ?? undefined;
  return code === undefined || f.message.includes(`code ${code}`)
    ? t('mcpFailureAt', f.message, clock(f.at))
    : t('mcpFailure', f.message, code, clock(f.at));
}

/** The permission rules in force, each with its source (and file). */
export function renderRulesPane(rules: readonly PermissionRuleView[], open: (path: string) => void): HTMLElement {
  const body = h('div', { id: 'rules-body', class: 'rules-pane' });
  if (rules.length === 0) {
    body.append(h('p', { class: 'empty', id: 'rules-empty' }, t('rulesNone')));
    return body;
  }
  body.append(
    h(
      'ul',
      { class: 'rules-list', 'aria-label': t('paneRules') },
      ...rules.map((r) =>
        h(
          'li',
          { class: `rule-row rule-${r.behavior}` },
          h('span', { class: `badge rule-behavior` }, r.behavior === 'allow' ? t('ruleAllow') : t('ruleDeny')),
          h('code', { class: 'rule-text' }, r.text),
          h('span', { class: 'mcp-meta' }, t(`ruleSource_${r.source}` as StringKey)),
          r.file ? lightButton(r.file, { look: 'link', onClick: () => open(r.file!) }) : null,
        ),
      ),
    ),
  );
  return body;
}

/** A name as part of an element id (server and tool names may hold any character). */
function cssId(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
}
