// Another agent asks Engram's memory through `engram mcp` (issue 30): every labelled question of the recall
// evaluation set (test/fixtures/recall-eval, all five question files) is asked through the server's
// search_memory tool by the official SDK client, one real server process per evaluation folder, and the
// files it returns are compared with what Engram's own recall (recallForPrompt, the path a chat turn
// takes, default settings) attaches for the same question as a conversation's first message. Figures:
// mcp_recall_questions (asked), mcp_recall_identical (same files in the same order) and
// mcp_recall_identical_share (the second over the first; must be 1).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { autoMemoryDir } from '../../src/core/memory/autoMemory/memoryPaths';
import { recallForPrompt } from '../../src/core/memory/autoMemory/recall';
import { startEngramMcp } from '../unit/support/engramMcp';
import {
  EVAL_DIR,
  FRESH_QUESTIONS,
  loadEvalQuestions,
  MAIN_QUESTIONS,
  PARAPHRASE_QUESTIONS,
  UNRELATED_QUESTIONS,
  UNTOUCHED_QUESTIONS,
  type EvalQuestion,
} from './recallEval';

type Metrics = Record<string, { value: number; unit: string; target?: number; note?: string }>;

export interface McpRecallComparison {
  asked: number;
  identical: number;
  /** Questions on which the two differ: `folder: question -> mcp [..] recall [..]`. */
  differences: string[];
  /** Questions for which recall attached at least one file (the comparison is not all empty lists). */
  withMemory: number;
}

/** Every question of every evaluation file. */
export function allEvalQuestions(): EvalQuestion[] {
  return [MAIN_QUESTIONS, FRESH_QUESTIONS, UNRELATED_QUESTIONS, PARAPHRASE_QUESTIONS, UNTOUCHED_QUESTIONS].flatMap(
    (name) => loadEvalQuestions(name),
  );
}

/** Asks `questions` through `engram mcp` and through recall directly; how often they agree. */
export async function compareMcpRecall(questions: readonly EvalQuestion[]): Promise<McpRecallComparison> {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'engram-mcp-recall-')));
  const out: McpRecallComparison = { asked: 0, identical: 0, differences: [], withMemory: 0 };
  try {
    const folders = [...new Set(questions.map((q) => q.folder))];
    for (const folder of folders) {
      // A project per folder whose memory is a copy of the evaluation folder, in the real data layout.
      const cwd = path.join(home, 'projects', folder);
      fs.mkdirSync(cwd, { recursive: true });
      const dataDir = path.join(home, 'data');
      const memoryDir = await autoMemoryDir(dataDir, cwd);
      fs.cpSync(path.join(EVAL_DIR, folder), memoryDir, { recursive: true });
      const mcp = await startEngramMcp({ home, args: ['--cwd', cwd, '--data-dir', dataDir], clientName: 'bench' });
      try {
        for (const q of questions.filter((x) => x.folder === folder)) {
          const expected = (await recallForPrompt(memoryDir, q.q, [])).files.map((f) => f.file);
          const r = await mcp.call('search_memory', { query: q.q });
          const got = r.isError
            ? [`error: ${r.text}`]
            : (r.structuredContent as { matches: Array<{ file: string }> }).matches.map((m) => m.file);
          out.asked++;
          if (expected.length > 0) out.withMemory++;
          if (got.join('\n') === expected.join('\n')) out.identical++;
          else out.differences.push(`${folder}: ${q.q} -> mcp [${got.join(', ')}] recall [${expected.join(', ')}]`);
        }
      } finally {
        await mcp.close();
      }
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  return out;
}

export async function run(): Promise<Metrics> {
  const c = await compareMcpRecall(allEvalQuestions());
  for (const d of c.differences) console.error(`mcpRecall: ${d}`);
  const note = `${c.withMemory} of the questions get memory from recall; the rest get none from both`;
  return {
    mcp_recall_questions: { value: c.asked, unit: 'questions' },
    mcp_recall_identical: { value: c.identical, unit: 'questions', note },
    mcp_recall_identical_share: { value: c.asked ? c.identical / c.asked : 0, unit: 'share', target: 1 },
  };
}
