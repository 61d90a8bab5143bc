// The background memory pass: among the new messages, a stated preference or a correction of the user
// is worth keeping; it is saved as a typed memory (Read the index, then Write the topic file and the
// index), unless the topic list shows it is saved already. Anything else: "nothing to save".
import { buildMemoryNote } from '../memoryNote';
import { PREFERENCE } from '../intents';
import { DEMO_PREFIX, silentCalls, type DemoAnswer } from '../reply';
import { userWords, type DemoRequest } from '../request';
import { takenNames } from './remember';
import { memoryWriteStep } from './memoryWrite';

const NOTHING = `${DEMO_PREFIX} nothing to save`;

/** The newest thing the user said in the last `count` messages that is worth a memory. */
export function memorableStatement(req: DemoRequest, count: number): string | undefined {
  const scope = req.messages.slice(Math.max(0, req.promptAt - count), req.promptAt);
  const said = scope
    .flatMap(userWords)
    .map((w) => w.trim())
    .filter((w) => !w.startsWith('['));
  // "remember ..." is the main agent's job (it saved it already, or the user saw why not).
  return said
    .reverse()
    .find((w) => PREFERENCE.test(w) && !/^remember\b|^记住/i.test(w))
    ?.split('\n')[0];
}

export function extractMemories(req: DemoRequest): DemoAnswer {
  const dir = req.memoryDir ?? /memory folder (\S+?)\.?\s/.exec(req.prompt)?.[1];
  const count = Number(/the last (\d+) messages? above/.exec(req.prompt)?.[1] ?? req.promptAt);
  const statement = memorableStatement(req, count);
  if (!dir || !statement || !req.tools.has('Write')) return { content: [{ type: 'text', text: NOTHING }] };
  const existing = [...req.prompt.matchAll(/^- (\S+\.md)(?: \[[a-z]+\])?(?::\s*(.*))?$/gm)];
  const note = buildMemoryNote(statement, {
    taken: takenNames(
      req,
      existing.map((m) => m[1]),
    ),
    date: req.date,
    source: 'noticed',
  });
  if (existing.some((m) => m[2]?.trim() === note.description))
    return { content: [{ type: 'text', text: `${NOTHING} (already saved)` }] };
  const step = memoryWriteStep(req, dir, note, { readIndexFirst: true });
  if ('next' in step) return silentCalls(step.next);
  if ('failed' in step)
    return { content: [{ type: 'text', text: `${DEMO_PREFIX} could not save ${note.file}: ${step.failed}` }] };
  return { content: [{ type: 'text', text: `${DEMO_PREFIX} saved ${note.file}.` }] };
}
