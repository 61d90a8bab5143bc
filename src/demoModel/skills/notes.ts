// The session notes updater's request: one Edit per section that has something new, each replacing the
// section's guide line and old body with the guide line and the new body, so the template stays and
// the notes say what happened (requests, files, commands, errors, where things stand).
import { digest, type Digest } from '../digest';
import { clip, DEMO_PREFIX, silentCalls, type DemoAnswer } from '../reply';
import type { DemoRequest } from '../request';

interface Section {
  heading: string;
  /** The exact text from the guide line (or the heading, without one) to the end of the body. */
  block: string;
  anchor: string;
  body: string[];
}

/** The notes as the updater's message quotes them, cut into sections. */
function sectionsOf(notes: string): Section[] {
  const lines = notes.split('\n');
  const out: Section[] = [];
  for (let i = 0; i < lines.length; i++) {
    const h = /^# +(.*?)\s*$/.exec(lines[i]);
    if (!h) continue;
    let end = i + 1;
    while (end < lines.length && !/^# /.test(lines[end])) end++;
    let first = i + 1;
    while (first < end && lines[first].trim() === '') first++;
    const hasGuide = first < end && /^\s*(?:_(?!_).+_|\*(?!\*).+\*)\s*$/.test(lines[first]);
    const anchorAt = hasGuide ? first : i;
    let last = end - 1;
    while (last > anchorAt && lines[last].trim() === '') last--;
    out.push({
      heading: h[1],
      anchor: lines[anchorAt],
      block: lines.slice(anchorAt, last + 1).join('\n'),
      body: lines.slice(anchorAt + 1, last + 1).filter((l) => l.trim() !== ''),
    });
  }
  return out;
}

/**
 * Lines kept from before, then the new ones, without repeats or stale "in progress" lines, at most `max`
 * (the newest).
 */
function merged(old: string[], fresh: string[], max: number): string[] {
  const all: string[] = [];
  // What was still running at the last update has an outcome by now (or is listed as running again).
  const settled = old.filter((l) => !/(?:: (?:being read|edit waiting|write waiting)| \(in progress\))$/.test(l));
  for (const l of [...settled, ...fresh]) if (!all.includes(l)) all.push(l);
  return all.slice(-max);
}

/** New body lines per default heading; a section not named here is left as it is. */
function bodies(d: Digest, old: (heading: string) => string[]): Record<string, string[]> {
  const last = d.requests.at(-1);
  const state = [
    last ? `- Latest request: "${clip(last, 160)}"` : '- No request yet.',
    d.open
      ? '- A tool call of that request is still waiting for its result or a permission answer.'
      : d.lastReply
        ? `- Answered: ${clip(d.lastReply, 160)}`
        : '',
    '- Next step: wait for the next request.',
  ].filter(Boolean);
  return {
    'Session Title': [`Offline demo: ${clip(d.requests[0] ?? 'first steps', 50)}`],
    'Current State': state,
    'Task specification': merged(
      old('Task specification'),
      d.requests.map((r) => `- "${clip(r, 160)}"`),
      12,
    ),
    'Files and Functions': merged(
      old('Files and Functions'),
      d.files.map((f) => `- ${f.path}: ${f.action}`),
      20,
    ),
    Workflow: merged(
      old('Workflow'),
      d.commands.map((c) => `- \`${clip(c.command, 100)}\` (${c.outcome})`),
      10,
    ),
    'Errors & Corrections': merged(
      old('Errors & Corrections'),
      d.errors.map((e) => `- ${e}`),
      10,
    ),
    Worklog: merged(
      old('Worklog'),
      d.worklog.map((w) => `- ${w}`),
      20,
    ),
  };
}

export function updateNotes(req: DemoRequest): DemoAnswer {
  // The fork ends after edits that all applied; a later call only follows a failed edit.
  if (req.rounds.length > 0) {
    const failed = req.rounds.flat().filter((s) => s.result?.isError !== false);
    const outcome =
      failed.length === 0
        ? 'session notes updated.'
        : `${failed.length} edit(s) did not apply; the notes stay as they are.`;
    return { content: [{ type: 'text', text: `${DEMO_PREFIX} ${outcome}` }] };
  }
  const file = /^The notes file is (.+?)\. Its current content/m.exec(req.prompt)?.[1];
  const notes = /<notes>\n([\s\S]*?)\n<\/notes>/.exec(req.prompt)?.[1];
  if (!file || notes === undefined || !req.tools.has('Edit'))
    return { content: [{ type: 'text', text: `${DEMO_PREFIX} I could not find the notes file in the request.` }] };
  const sections = sectionsOf(notes);
  const byHeading = new Map(sections.map((s) => [s.heading, s]));
  const want = bodies(digest(req.messages.slice(0, req.promptAt), req), (h) => byHeading.get(h)?.body ?? []);
  const calls: Array<{ name: string; input: Record<string, unknown> }> = [];
  for (const [heading, lines] of Object.entries(want)) {
    const s = byHeading.get(heading);
    if (!s || lines.length === 0 || lines.join('\n') === s.body.join('\n')) continue;
    calls.push({
      name: 'Edit',
      input: { file_path: file, old_string: s.block, new_string: `${s.anchor}\n${lines.join('\n')}` },
    });
  }
  if (calls.length === 0)
    return { content: [{ type: 'text', text: `${DEMO_PREFIX} nothing new for the session notes.` }] };
  return silentCalls(calls);
}
