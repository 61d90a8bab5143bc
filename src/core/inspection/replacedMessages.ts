// The messages a compaction replaced, read back from the transcript (which keeps every original line):
// by the uuids the live event recorded, or, for a compaction only known from disk, the conversation
// lines between the previous boundary and its own. Rendered as plain text, one block per message, for
// the inspector's details (shown as text, never as HTML) and for the left side of the diff editor.
import { forEachTranscriptLine } from '../conversation/transcriptReader';
import type { AssistantLine, ContentBlock, UserLine } from '../conversation/types';
import type { ReplacedMessageView } from '../../protocol/messages';

/** A long tool result is cut for the webview; the diff editor gets it whole. */
export const DETAIL_TEXT_MAX_CHARS = 20_000;

export type ReplacedSelector = { uuids: readonly string[] } | { lineRange: readonly [number, number] };

export async function readReplacedMessages(
  transcriptPath: string,
  selector: ReplacedSelector,
): Promise<ReplacedMessageView[]> {
  const wanted = 'uuids' in selector ? new Set(selector.uuids) : undefined;
  const byUuid = new Map<string, ReplacedMessageView>();
  const inRange: ReplacedMessageView[] = [];
  await forEachTranscriptLine(transcriptPath, (line, lineNo) => {
    if (line.type !== 'user' && line.type !== 'assistant') return;
    const l = line as UserLine | AssistantLine;
    if (wanted) {
      if (wanted.has(l.uuid)) byUuid.set(l.uuid, viewOf(l));
      return;
    }
    const [from, to] = (selector as { lineRange: readonly [number, number] }).lineRange;
    if (lineNo < from) return;
    if (lineNo > to) return false;
    if (l.isSidechain || (l.type === 'user' && (l as UserLine).isCompactSummary)) return;
    inRange.push(viewOf(l));
  });
  if (!wanted) return merge(inRange);
  const ordered = (selector as { uuids: readonly string[] }).uuids
    .map((id) => byUuid.get(id))
    .filter((v): v is ReplacedMessageView => v !== undefined);
  return merge(ordered);
}

function viewOf(line: UserLine | AssistantLine): ReplacedMessageView {
  const content = line.message.content as string | ContentBlock[];
  return {
    role: line.type,
    text: typeof content === 'string' ? content : content.map(blockText).filter(Boolean).join('\n'),
  };
}

/** Lines of one streamed response (one block each) read better as one message. */
function merge(views: ReplacedMessageView[]): ReplacedMessageView[] {
  const out: ReplacedMessageView[] = [];
  for (const v of views) {
    const last = out[out.length - 1];
    if (last && last.role === v.role) last.text = `${last.text}\n${v.text}`;
    else out.push({ ...v });
  }
  return out;
}

export function blockText(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'thinking':
      return `[thinking]\n${b.thinking}`;
    case 'redacted_thinking':
      return '[redacted thinking]';
    case 'tool_use':
      return `[tool call ${b.name}] ${JSON.stringify(b.input)}`;
    case 'image':
      return '[image]';
    case 'tool_result': {
      const c = b.content;
      const text =
        typeof c === 'string'
          ? c
          : Array.isArray(c)
            ? c.map((x) => (x.type === 'text' ? x.text : '[image]')).join('\n')
            : '';
      return `[tool result${b.is_error ? ', error' : ''}]\n${text}`;
    }
    default:
      return '';
  }
}

/** For the webview: each message cut to DETAIL_TEXT_MAX_CHARS. */
export function clipForWebview(messages: readonly ReplacedMessageView[]): ReplacedMessageView[] {
  return messages.map((m) =>
    m.text.length > DETAIL_TEXT_MAX_CHARS
      ? {
          role: m.role,
          text:
            `${m.text.slice(0, DETAIL_TEXT_MAX_CHARS)}\n… ` +
            `(${m.text.length - DETAIL_TEXT_MAX_CHARS} more characters in the diff editor)`,
        }
      : m,
  );
}

/** The left side of the diff editor: the replaced messages as one Markdown-ish document. */
export function replacedDocument(messages: readonly ReplacedMessageView[]): string {
  if (messages.length === 0) return '(no messages were replaced, or their lines are no longer in the transcript)\n';
  return `${messages.map((m, i) => `## ${i + 1}. ${m.role}\n\n${m.text}\n`).join('\n')}`;
}
