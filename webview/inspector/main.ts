// The Memory Inspector: context gauge, session notes, the memory index and the compaction timeline.
import type { HostToInspector, InspectorSnapshot, InspectorToHost } from '../../src/protocol/messages';
import { button, h, registerComponents } from '../shared/components';
import { renderGauge } from '../shared/gauge';
import { connect } from '../shared/host';
import { renderMarkdown } from '../shared/markdown';

registerComponents();

const app = document.getElementById('app')!;
let current: InspectorSnapshot | undefined;

const link = connect<HostToInspector, InspectorToHost>({
  snapshot: (m) => {
    current = m.state;
    render(m.state);
  },
  gauge: (m) => {
    if (!current) return;
    current.gauge = m.gauge;
    document.getElementById('gauge-section')?.replaceWith(gaugeSection(current));
  },
  pong: (m) => { document.getElementById('inspector-status')!.textContent = m.text; },
});

function section(id: string, title: string, ...children: Array<Node | null>): HTMLElement {
  return h('section', { id, class: 'inspector-section', 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, title), ...children.filter((c): c is Node => c !== null));
}

function gaugeSection(s: InspectorSnapshot): HTMLElement {
  const rows = s.gauge.breakdown.map((b) => h('tr', {}, h('td', {}, b.category), h('td', { class: 'num' }, b.tokens.toLocaleString('en-US'))));
  return section('gauge-section', 'Context', renderGauge(s.gauge, false),
    rows.length ? h('table', { class: 'breakdown', 'aria-label': 'Context by category' }, ...rows) : null);
}

function render(s: InspectorSnapshot): void {
  app.setAttribute('aria-busy', 'false');
  const notes = s.notes.markdown
    ? h('div', { class: 'markdown notes' })
    : h('p', { class: 'empty' }, 'No session notes yet: they are written once the conversation reaches the first threshold.');
  if (s.notes.markdown) notes.append(renderMarkdown(s.notes.markdown));
  const entries = s.memory.entries.length
    ? h('ul', { class: 'memory-list', role: 'tree', 'aria-label': 'Memory entries' },
      ...s.memory.entries.map((e) => h('li', { role: 'treeitem', class: `memory-entry type-${e.type}` },
        h('span', { class: 'memory-title' }, e.title), h('span', { class: 'memory-hook' }, ` — ${e.hook}`))))
    : h('p', { class: 'empty' }, 'This project has no memories yet.');
  const timeline = s.timeline.length
    ? h('ol', { class: 'timeline', 'aria-label': 'Timeline' }, ...s.timeline.map((t) => h('li', { class: `timeline-${t.kind}` }, h('time', {}, t.at), ` ${t.text}`)))
    : h('p', { class: 'empty' }, 'No compactions or memory writes in this session yet.');
  app.replaceChildren(
    h('header', { class: 'inspector-header' },
      h('h1', {}, 'Memory Inspector'),
      h('span', { class: 'source' }, `Source: ${s.source}${s.sessionId ? ` · session ${s.sessionId}` : ''}`),
      button('Refresh', { appearance: 'secondary', icon: 'refresh', id: 'refresh', onClick: () => link.post({ type: 'refresh' }) })),
    gaugeSection(s),
    section('notes-section', 'Session notes', notes),
    section('memory-section', 'Memory', entries),
    section('timeline-section', 'Timeline', timeline),
    h('div', { id: 'inspector-status', role: 'status' }));
}

link.post({ type: 'ready' });
