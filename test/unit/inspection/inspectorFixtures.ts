// Fixture data for the inspector's tests and its bench: a memory folder with an index over the 200-line
// cap, typed topic files (one with provenance, one missing, one not indexed), team memory, session
// notes with their sidecar, and a transcript with responses and a compaction.
import fs from 'node:fs';
import path from 'node:path';

export const TYPES = ['user', 'feedback', 'project', 'reference'] as const;

export function writeFile(file: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

export function topicText(name: string, type: string, extra: Record<string, string> = {}): string {
  const lines = [
    `name: ${name}`,
    `description: ${name} in one line`,
    `type: ${type}`,
    ...Object.entries(extra).map(([k, v]) => `${k}: ${v}`),
  ];
  return `---\n${lines.join('\n')}\n---\n\n${name}: the rule.\n**Why:** a reason.\n**How to apply:** always.\n`;
}

/**
 * A memory folder whose MEMORY.md has `lines` entries (a heading first), type cycling through the four,
 * plus `missing.md` (indexed, absent), `stray.md` (present, not indexed) and `team/` with one entry.
 */
export function writeMemoryFolder(dir: string, lines = 230): { index: string } {
  const index: string[] = ['# Memory index'];
  for (let i = 1; index.length < lines - 1; i++) {
    const type = TYPES[i % 4];
    const file = `${type}_${String(i).padStart(3, '0')}.md`;
    const extra: Record<string, string> =
      i === 1 ? { originSessionId: 'session-origin-1', originMessageId: 'uuid-origin-1' } : {};
    writeFile(path.join(dir, file), topicText(`Entry ${i}`, type, extra));
    index.push(`- [Entry ${i}](${file}) — hook of entry ${i}`);
  }
  index.push('- [Gone](missing.md) — the file was deleted');
  const text = `${index.join('\n')}\n`;
  writeFile(path.join(dir, 'MEMORY.md'), text);
  writeFile(path.join(dir, 'stray.md'), topicText('Stray', 'project'));
  writeFile(path.join(dir, 'team', 'MEMORY.md'), '- [Team rule](team_rule.md) — shared by the team\n');
  writeFile(path.join(dir, 'team', 'team_rule.md'), topicText('Team rule', 'feedback'));
  return { index: text };
}

export function line(obj: Record<string, unknown>): string {
  return `${JSON.stringify(obj)}\n`;
}

/** A transcript: three responses, then a full compaction (boundary + summary), then one more response. */
export function writeTranscript(file: string, sessionId: string, cwd: string): void {
  const base = { sessionId, cwd, isSidechain: false, version: 'test' };
  let t = Date.parse('2026-01-02T10:00:00Z');
  const ts = () => new Date((t += 1000)).toISOString();
  let parent: string | null = null;
  const out: string[] = [];
  const push = (o: Record<string, unknown>) => {
    out.push(line({ ...base, parentUuid: parent, timestamp: ts(), ...o }));
    parent = o.uuid as string;
  };
  const usage = (n: number) => ({
    input_tokens: n,
    output_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  });
  const assistant = (uuid: string, id: string, text: string, n: number) =>
    push({
      type: 'assistant',
      uuid,
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: usage(n),
      },
    });
  push({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'First question' } });
  assistant('a1', 'msg_1', 'First answer', 1000);
  push({
    type: 'user',
    uuid: 'u2',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'x', content: '<img src=x onerror=alert(1)>' }],
    },
  });
  assistant('a2', 'msg_2', 'Second answer', 2000);
  push({ type: 'user', uuid: 'u3', message: { role: 'user', content: 'Third question' } });
  assistant('a3', 'msg_3', 'Third answer', 3000);
  push({
    type: 'system',
    uuid: 'b1',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    level: 'info',
    isMeta: false,
    compactMetadata: {
      trigger: 'auto',
      preTokens: 3010,
      stage: 'full',
      postTokens: 400,
      modelCalls: 1,
      durationMs: 1234,
      eventId: 'evt-1',
    },
  });
  parent = 'b1';
  push({
    type: 'user',
    uuid: 's1',
    isCompactSummary: true,
    isVisibleInTranscriptOnly: true,
    message: { role: 'user', content: 'Summary of the first three turns.' },
  });
  push({ type: 'user', uuid: 'u4', message: { role: 'user', content: 'Fourth question' } });
  assistant('a4', 'msg_4', 'Fourth answer', 600);
  writeFile(file, out.join(''));
}

export const NOTES_TEXT = [
  '# Session Title',
  '_Five to ten words_',
  'Fixing the greeting',
  '',
  '# Current State',
  '_What is in progress_',
  'Editing src/greet.js <img src=x onerror=alert(1)>',
  '',
  '# Task specification',
  '_What the user asked_',
  '',
  '',
  '# Files and Functions',
  '_Files_',
  '- src/greet.js',
  '',
  '# Workflow',
  '_Commands_',
  '',
  '',
  '# Errors & Corrections',
  '_Errors_',
  '',
  '',
  '# Codebase and System Documentation',
  '_How_',
  '',
  '',
  '# Learnings',
  '_What worked_',
  '',
  '',
  '# Key results',
  '_Outputs_',
  '',
  '',
  '# Worklog',
  '_Steps_',
  '- read greet.js',
  '',
].join('\n');
