// The offline demo model of `npm start` (and of the CLI against `node dist/testServer.js`): a scripted
// stand-in for Claude that answers only with text and tool_use blocks, so the engine's real tools,
// permission prompts and memory do the work. It reads the request as the API would (system prompt,
// tools, messages with tool results) and is deterministic: the same request gets the same answer.
import { EXTRACTION_MARKER } from '../core/memory/autoMemory/memoryPrompts';
import { RECALL_PICK_MARKER } from '../core/memory/autoMemory/modelRecall';
import { NOTES_UPDATE_MARKER } from '../core/memory/sessionNotes/prompts';
import { SUMMARY_REQUEST_MARKER } from '../core/compaction/summaryPrompt';
import { TIDY_REQUEST_MARKER } from '../core/memory/tidy/tidyPropose';
import { FORK_MARKERS } from './digest';
import { matchIntent } from './intents';
import { DEMO_PREFIX, langOf, type DemoAnswer } from './reply';
import { readRequest } from './request';
import { appendLine, createFile, replaceText } from './skills/edits';
import { explainFile } from './skills/explain';
import { extractMemories } from './skills/extraction';
import { listFiles, readFile, search } from './skills/files';
import { updateNotes } from './skills/notes';
import { recall, remember } from './skills/remember';
import { recallPick } from './skills/recallPick';
import { runCommand } from './skills/run';
import { compactionSummary } from './skills/summary';
import { tidyProposal } from './skills/tidy';
import { preferenceNoted, tour } from './skills/tour';

/** A turn that keeps calling tools past this many responses is stopped with words. */
const MAX_ROUNDS = 4;

export function demoReply(body: Record<string, unknown>): DemoAnswer {
  const req = readRequest(body, [...FORK_MARKERS, TIDY_REQUEST_MARKER]);
  if (req.prompt.startsWith(SUMMARY_REQUEST_MARKER)) return compactionSummary(req);
  if (req.prompt.startsWith(NOTES_UPDATE_MARKER)) return updateNotes(req);
  if (req.prompt.startsWith(EXTRACTION_MARKER)) return extractMemories(req);
  if (req.prompt.startsWith(RECALL_PICK_MARKER)) return recallPick(req);
  if (req.prompt.startsWith(TIDY_REQUEST_MARKER)) return tidyProposal(req);
  const lang = langOf(req.prompt);
  if (req.rounds.length >= MAX_ROUNDS)
    return {
      content: [
        {
          type: 'text',
          text: `${DEMO_PREFIX} I stop here: this turn has made ${req.rounds.length} rounds of tool calls.`,
        },
      ],
    };
  const intent = matchIntent(req.prompt);
  switch (intent.kind) {
    case 'read':
      return readFile(req, intent.path, lang);
    case 'explain':
      return explainFile(req, intent.path, lang);
    case 'search':
      return search(req, intent.text, intent.path, lang);
    case 'list':
      return listFiles(req, intent.dir, lang);
    case 'replace':
      return replaceText(req, intent.path, intent.from, intent.to, lang);
    case 'create':
      return createFile(req, intent.path, intent.content, lang);
    case 'append':
      return appendLine(req, intent.path, intent.line, lang);
    case 'run':
      return runCommand(req, intent.command, lang);
    case 'remember':
      return remember(req, intent.fact, lang);
    case 'recall':
      return recall(req, lang);
    case 'preference':
      return preferenceNoted(lang);
    case 'tour':
      return tour(lang);
    case 'unknown':
      return tour(lang, req.prompt);
  }
}
