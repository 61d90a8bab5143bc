// The demo's answer to "Tidy memory" (issue 32): it reads the health report the request carries and
// proposes what a careful person would from it alone: a pair that repeats itself merges into the first
// (keeping the first's words), a stale path the workspace now has under the same name is rewritten to
// the new place, and a memory that names only what is gone is offered for deletion. The person still
// accepts each change; the demo decides nothing on its own.
import { TIDY_TOOL_NAME } from '../../core/memory/tidy/tidyPropose';
import type { DemoAnswer } from '../reply';
import type { DemoRequest } from '../request';

interface Section {
  file: string;
  stale: Array<{ ref: string; hint?: string }>;
  repeats: string[];
  text: string;
  whole: boolean;
}

/** The `### file:` sections of the request, each with its stale lines, repeats and text. */
function sections(prompt: string): Section[] {
  const out: Section[] = [];
  for (const part of prompt.split(/\n\n(?=### file: )/).slice(1)) {
    const file = /^### file: (.+)$/m.exec(part)?.[1]?.trim();
    const open = part.indexOf('\n<<<\n');
    const close = part.lastIndexOf('\n>>>');
    if (!file || open < 0 || close < open) continue;
    const head = part.slice(0, open);
    const stale = [...head.matchAll(/^stale (?:path|symbol|command) (.+?): (.*)$/gm)].map((m) => {
      const hint = /\(the workspace now has: ([^,)]+)/.exec(m[2])?.[1]?.trim();
      return { ref: m[1], ...(hint ? { hint } : {}) };
    });
    const repeats = (/^repeats: (.+)$/m.exec(head)?.[1] ?? '')
      .split(', ')
      .map((f) => f.trim())
      .filter(Boolean);
    out.push({ file, stale, repeats, text: part.slice(open + 5, close), whole: head.includes('(whole file)') });
  }
  return out;
}

export function tidyProposal(req: DemoRequest): DemoAnswer {
  const all = sections(req.prompt);
  const byFile = new Map(all.map((s) => [s.file, s]));
  const touched = new Set<string>();
  const changes: Array<Record<string, unknown>> = [];
  for (const s of all) {
    if (touched.has(s.file) || !s.whole) continue;
    const other = s.repeats.find((f) => !touched.has(f) && byFile.get(f)?.whole);
    if (other) {
      touched.add(s.file).add(other);
      changes.push({
        kind: 'merge',
        files: [s.file, other],
        content: s.text,
        reason: `${other} says what ${s.file} says; one memory keeps it.`,
      });
      continue;
    }
    if (s.stale.length === 0) continue;
    touched.add(s.file);
    if (s.stale.every((x) => x.hint)) {
      let text = s.text;
      for (const x of s.stale) text = text.split(x.ref).join(x.hint as string);
      changes.push({
        kind: 'rewrite',
        files: [s.file],
        content: text,
        reason: `Names ${s.stale.map((x) => `${x.ref} (now ${x.hint})`).join(', ')}.`,
      });
    } else
      changes.push({
        kind: 'delete',
        files: [s.file],
        reason: `Names ${s.stale.map((x) => x.ref).join(', ')}, which the workspace no longer has.`,
      });
  }
  return { content: [{ type: 'tool_use', name: TIDY_TOOL_NAME, input: { changes } }] };
}
