// Transcript load benchmark (DESIGN 8): a generated ~100 MB session transcript in Claude Code's line
// format (prompts, streamed assistant blocks, tool results of a few KB, snapshots, a compaction every
// ~1 MB as a long session has) is streamed and resumed with loadConversation. Reports throughput
// (target >= 50 MB/s) and peak RSS growth while loading (bounded: it must not follow the file size).
// readTranscript, which keeps every line, is measured as well for comparison.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { loadConversation } from '../../src/core/conversation/conversationLoader';
import { readTranscript } from '../../src/core/conversation/transcriptReader';

type Metrics = Record<string, { value: number; unit: string; target?: number }>;

const TARGET_BYTES = 100 * 1024 * 1024;
const COMPACT_EVERY_BYTES = 1024 * 1024;

export async function run(): Promise<Metrics> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'engram-bench-transcript-'));
  try {
    const file = path.join(dir, 'session.jsonl');
    const bytes = await generate(file);
    const mb = bytes / (1024 * 1024);

    const load = await measure(async () => {
      const r = await loadConversation(file);
      if (r.entries.length === 0 || r.corrupt.length > 0) throw new Error('generated transcript did not load');
    });
    const all = await measure(async () => {
      const r = await readTranscript(file);
      if (r.lines.length === 0) throw new Error('generated transcript did not read');
    });
    return {
      transcript_load_mb_s: { value: round(mb / (load.ms / 1000)), unit: 'MB/s', target: 50 },
      transcript_load_rss_mb: { value: round(load.rssGrowthMb), unit: 'MB' },
      transcript_read_all_mb_s: { value: round(mb / (all.ms / 1000)), unit: 'MB/s' },
      transcript_read_all_rss_mb: { value: round(all.rssGrowthMb), unit: 'MB' },
      transcript_bench_file_mb: { value: round(mb), unit: 'MB' },
    };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Wall time and peak RSS above the (collected) baseline, sampled every few milliseconds. */
async function measure(fn: () => Promise<void>): Promise<{ ms: number; rssGrowthMb: number }> {
  collectGarbage();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const started = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - started;
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, rssGrowthMb: (peak - baseline) / (1024 * 1024) };
}

function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
}

/** Writes realistic lines in big batches, about `targetBytes` of them; returns the file size. */
export async function generate(
  file: string,
  targetBytes = TARGET_BYTES,
  compactEveryBytes = COMPACT_EVERY_BYTES,
): Promise<number> {
  const out = fs.createWriteStream(file);
  const sessionId = randomUUID();
  const tail = {
    userType: 'external',
    entrypoint: 'engram',
    cwd: '/home/dev/demo',
    sessionId,
    version: '0.1.0',
    gitBranch: 'main',
  };
  let written = 0;
  let sinceCompact = 0;
  let parent: string | null = null;
  let batch: string[] = [];
  const emit = (line: Record<string, unknown>): void => {
    const text = JSON.stringify(line) + '\n';
    batch.push(text);
    written += text.length;
    sinceCompact += text.length;
    if (typeof line.uuid === 'string') parent = line.uuid;
  };
  const flush = async (): Promise<void> => {
    if (!out.write(batch.join(''))) await new Promise<void>((r) => out.once('drain', () => r()));
    batch = [];
  };
  const now = (): string => new Date().toISOString();

  for (let turn = 0; written < targetBytes; turn++) {
    const promptId = randomUUID();
    emit({
      type: 'file-history-snapshot',
      messageId: randomUUID(),
      snapshot: { trackedFileBackups: {}, timestamp: now() },
      isSnapshotUpdate: false,
    });
    emit({
      parentUuid: parent,
      isSidechain: false,
      promptId,
      type: 'user',
      message: {
        role: 'user',
        content: `Turn ${turn}: look at src/module${turn}.ts and fix the failing test, please.`,
      },
      uuid: randomUUID(),
      timestamp: now(),
      ...tail,
    });
    for (let step = 0; step < 3; step++) {
      const messageId = `msg_${turn}_${step}`;
      const usage = {
        input_tokens: 1200,
        cache_creation_input_tokens: 800,
        cache_read_input_tokens: 40_000,
        output_tokens: 180,
      };
      const assistant = (content: unknown[], stop: string | null) => ({
        parentUuid: parent,
        isSidechain: false,
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content,
          stop_reason: stop,
          stop_sequence: null,
          usage,
        },
        requestId: `req_${turn}_${step}`,
        type: 'assistant',
        uuid: randomUUID(),
        timestamp: now(),
        ...tail,
      });
      emit(
        assistant(
          [{ type: 'text', text: `Step ${step}: reading the next file to see how the handler validates its input.` }],
          null,
        ),
      );
      const toolId = `toolu_${turn}_${step}`;
      const callLine = assistant(
        [
          {
            type: 'tool_use',
            id: toolId,
            name: 'Read',
            input: { file_path: `/home/dev/demo/src/module${turn}_${step}.ts` },
          },
        ],
        'tool_use',
      );
      emit(callLine);
      const content = codeText(turn * 7 + step, 40 + ((turn + step) % 5) * 30);
      emit({
        parentUuid: callLine.uuid,
        isSidechain: false,
        promptId,
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content }] },
        uuid: randomUUID(),
        timestamp: now(),
        toolUseResult: {
          type: 'text',
          file: { filePath: `/home/dev/demo/src/module${turn}_${step}.ts`, numLines: 40 },
        },
        sourceToolAssistantUUID: callLine.uuid,
        ...tail,
      });
    }
    emit({
      parentUuid: parent,
      isSidechain: false,
      message: {
        id: `msg_${turn}_end`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Fixed: the handler now rejects non-integer ids with a 400 and a message.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 20 },
      },
      type: 'assistant',
      uuid: randomUUID(),
      timestamp: now(),
      ...tail,
    });
    if (sinceCompact >= compactEveryBytes) {
      const boundary = randomUUID();
      emit({
        parentUuid: null,
        logicalParentUuid: parent,
        isSidechain: false,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        isMeta: false,
        timestamp: now(),
        uuid: boundary,
        level: 'info',
        compactMetadata: { trigger: 'auto', preTokens: 160_000 },
        ...tail,
      });
      emit({
        parentUuid: boundary,
        isSidechain: false,
        type: 'user',
        message: {
          role: 'user',
          content: `Summary of the work up to turn ${turn}: ${'details of files, errors and next steps. '.repeat(60)}`,
        },
        isVisibleInTranscriptOnly: true,
        isCompactSummary: true,
        uuid: randomUUID(),
        timestamp: now(),
        ...tail,
      });
      sinceCompact = 0;
    }
    if (batch.length > 500) await flush();
  }
  await flush();
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return (await fs.promises.stat(file)).size;
}

function codeText(seed: number, lines: number): string {
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    out.push(
      `${l + 1}\t  if (typeof input.field${l} !== 'number' || input.field${l} < ${seed % 100}) throw new ValidationError("field${l} is invalid");`,
    );
  }
  return out.join('\n');
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
