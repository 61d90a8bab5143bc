// A compaction's summary, written honestly without a model: every section the request asks for,
// filled from what the conversation shows, so /compact in the demo works as it does with Claude.
import { SUMMARY_SECTIONS } from '../../core/compaction/summaryPrompt';
import { digest } from '../digest';
import { DEMO_PREFIX, sentence, type DemoAnswer } from '../reply';
import type { DemoRequest } from '../request';

export function compactionSummary(req: DemoRequest): DemoAnswer {
  const d = digest(req.messages.slice(0, req.promptAt), req);
  const last = d.requests.at(-1);
  const list = (items: string[], none: string): string =>
    items.length > 0 ? items.map((i) => `- ${i}`).join('\n') : none;
  const body: Record<(typeof SUMMARY_SECTIONS)[number], string> = {
    'Request and intent': last
      ? `The user tried Engram with the offline demo model. Latest request: "${last}".`
      : 'The user tried Engram with the offline demo model.',
    'Key concepts':
      'A scripted, offline demo conversation: the replies are scripted, the tools and the memory engine are real.',
    Files: list(
      d.files.map((f) => `${f.path} (${f.action})`),
      'No files were touched.',
    ),
    'Errors and fixes': list(d.errors, 'None.'),
    'Problem solving': list(
      d.commands.map((c) => `\`${c.command}\`: ${c.outcome}`),
      'Nothing beyond the requests below.',
    ),
    'All user messages': list(
      d.requests.map((r) => `"${r}"`),
      '(none)',
    ),
    'Pending tasks': d.open ? `A tool call for "${last ?? ''}" had not finished.` : 'None known.',
    'Current work': last
      ? sentence(`Answering "${last}"${d.lastReply ? `; the last reply said: ${d.lastReply}` : ''}`)
      : 'Nothing in progress.',
    'Next step': 'Wait for the next request.',
  };
  const sections = SUMMARY_SECTIONS.map((title, i) => `${i + 1}. ${title}:\n${body[title]}`).join('\n\n');
  const analysis = `<analysis>\n${DEMO_PREFIX} the summary is built from the conversation's own messages.\n</analysis>`;
  return { content: [{ type: 'text', text: `${analysis}\n<summary>\n${sections}\n</summary>` }] };
}
