// What happened in a conversation, as the session notes and a compaction summary need it: the user's
// requests, the files each tool touched, the commands and their exit codes, the errors, the last reply.
import path from 'node:path';
import { DENIED_BY_USER } from '../core/agent/permissions';
import { NOTES_UPDATE_MARKER } from '../core/memory/sessionNotes/prompts';
import { EXTRACTION_MARKER } from '../core/memory/autoMemory/memoryPrompts';
import { SUMMARY_REQUEST_MARKER } from '../core/compaction/summaryPrompt';
import { clip } from './reply';
import { absPath, blocksOf, roundsAfter, shownPath, userWords, type Message } from './request';

/** Tasks the engine gives its own agents: never a request of the user. */
export const FORK_MARKERS = [NOTES_UPDATE_MARKER, EXTRACTION_MARKER, SUMMARY_REQUEST_MARKER] as const;

export interface Digest {
  requests: string[];
  files: Array<{ path: string; action: string }>;
  commands: Array<{ command: string; outcome: string }>;
  errors: string[];
  /** One line per tool call, in order. */
  worklog: string[];
  /** The last thing the assistant said, without the demo's label. */
  lastReply?: string;
  /** Whether the last assistant message still waits on a tool. */
  open: boolean;
}

const ACTIONS: Record<string, string> = { Read: 'read', Edit: 'edited', Write: 'written' };
const PENDING: Record<string, string> = { Read: 'being read', Edit: 'edit waiting', Write: 'write waiting' };

export function digest(messages: readonly Message[], where: { cwd?: string; memoryDir?: string }): Digest {
  // A memory file is named by its place in the memory folder: the folder's full path says nothing new.
  const shown = (p: string): string => {
    const abs = absPath(where, p);
    return where.memoryDir && abs.startsWith(`${where.memoryDir}${path.sep}`)
      ? `memory/${abs.slice(where.memoryDir.length + 1)}`
      : shownPath(where, p);
  };
  const d: Digest = { requests: [], files: [], commands: [], errors: [], worklog: [], open: false };
  for (const m of messages) {
    for (const w of userWords(m))
      if (!FORK_MARKERS.some((k) => w.trimStart().startsWith(k)))
        d.requests.push(clip(w.trim().replace(/\s+/g, ' '), 200));
    if (m.role === 'assistant') {
      const text = blocksOf(m.content)
        .filter((b) => b.type === 'text')
        .map((b) => String(b.text))
        .join(' ')
        .trim();
      if (text) d.lastReply = clip(text.replace(/^(?:Offline demo model:|离线演示模型：)\s*/, '').split('\n')[0], 200);
      d.open = blocksOf(m.content).some((b) => b.type === 'tool_use');
    }
  }
  for (const step of roundsAfter(messages, 0).flat()) {
    const { name, input } = step.call;
    const file =
      typeof input.file_path === 'string'
        ? shown(input.file_path)
        : typeof input.path === 'string'
          ? input.path
          : undefined;
    const what =
      name === 'Bash'
        ? `Bash \`${clip(String(input.command ?? ''), 80)}\``
        : name === 'Grep'
          ? `Grep \`${clip(String(input.pattern ?? ''), 60)}\``
          : `${name}${file ? ` ${file}` : ''}`;
    const r = step.result;
    const denied = r?.isError === true && r.text.startsWith(DENIED_BY_USER);
    d.worklog.push(
      `${what}${!r ? ' (in progress)' : denied ? ' (declined by the user)' : r.isError ? ' (failed)' : ''}`,
    );
    if (r?.isError)
      d.errors.push(denied ? `The user declined ${what}.` : `${what}: ${clip(r.text.split('\n')[0], 160)}`);
    if (name === 'Bash' && r) {
      const exit = /\[Exit code (\d+)\]$/.exec(r.text)?.[1] ?? (r.isError ? 'not run' : '0');
      d.commands.push({
        command: String(input.command ?? ''),
        outcome: denied ? 'declined' : exit === 'not run' ? 'not run' : `exit ${exit}`,
      });
    }
    const action = r ? ACTIONS[name] : PENDING[name];
    if (action && file && r?.isError !== true) {
      const known = d.files.find((f) => f.path === file);
      if (!known) d.files.push({ path: file, action });
      else if (!known.action.includes(action)) known.action = `${known.action}, ${action}`;
    }
  }
  return d;
}
