// The inspector's data assembly, on fixture folders: the memory tree (types, the 200-line cut, missing
// and unindexed files, team memory, provenance, the trash), the notes (sections, caps, what they cover),
// the timeline (live events, compactions from the transcript, which one can be undone), the sources,
// and a whole snapshot of a session read from disk. The gauge has its own tests (contextGauge.test.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { CompactionEvent } from '../../../src/core/compaction/events';
import { pruneEntry, restoreEntry } from '../../../src/core/memory/autoMemory/memoryTrash';
import { deleteTrashEntry } from '../../../src/core/memory/autoMemory/trashDelete';
import { resolveSettings } from '../../../src/core/settings/engramSettings';
import { buildMemoryView } from '../../../src/core/inspection/memoryView';
import { buildNotesView } from '../../../src/core/inspection/notesView';
import {
  clipForWebview,
  DETAIL_TEXT_MAX_CHARS,
  readReplacedMessages,
} from '../../../src/core/inspection/replacedMessages';
import { buildInspectorSnapshot, type SnapshotInput } from '../../../src/core/inspection/snapshotBuilder';
import {
  claudeConfigDir,
  isSessionId,
  lineOfMessage,
  listProjects,
  sessionPaths,
} from '../../../src/core/inspection/sources';
import type { TimelineEntry } from '../../../src/core/inspection/timeline';
import { buildTimeline } from '../../../src/core/inspection/timelineView';
import { transcriptFacts, type TranscriptFacts } from '../../../src/core/inspection/transcriptFacts';
import { NOTES_TEXT, writeFile, writeMemoryFolder, writeTranscript } from './inspectorFixtures';

const count = (text: string) => Math.ceil(text.length / 4);
let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'engram-inspector-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('memory view', () => {
  it('lists entries by line with type, tokens, provenance, the 200-line cut, missing, unindexed and team files', async () => {
    const dir = path.join(root, 'memory');
    writeMemoryFolder(dir, 230);
    writeFile(path.join(root, 'CLAUDE.md'), '# User instructions\nBe brief.\n');
    const view = await buildMemoryView({
      dir,
      instructions: { cwd: undefined, configDir: root, trusted: false },
      countTokens: count,
    });
    assert.equal(view.totalLines, 230);
    assert.equal(view.loadedLines, 200);
    assert.equal(view.maxLines, 200);
    const mine = view.entries.filter((e) => e.group === 'private');
    assert.equal(mine.length, 229);
    const first = mine[0];
    assert.deepEqual(
      [first.title, first.file, first.type, first.line, first.loaded, first.missing],
      ['Entry 1', 'feedback_001.md', 'feedback', 2, true, false],
    );
    assert.deepEqual(first.origin, { sessionId: 'session-origin-1', messageId: 'uuid-origin-1' });
    assert.ok(first.tokens! > 0 && first.mtimeMs! > 0);
    assert.equal(mine.find((e) => e.line === 200)!.loaded, true);
    assert.equal(mine.find((e) => e.line === 201)!.loaded, false);
    assert.deepEqual(new Set(mine.map((e) => e.type)), new Set(['user', 'feedback', 'project', 'reference', null]));
    const gone = mine.find((e) => e.file === 'missing.md')!;
    assert.equal(gone.missing, true);
    assert.equal(gone.type, null);
    assert.deepEqual(
      view.unindexed.map((e) => [e.group, e.file, e.indexed, e.type]),
      [['private', 'stray.md', false, 'project']],
    );
    assert.deepEqual(
      view.entries.filter((e) => e.group === 'team').map((e) => [e.file, e.type, e.path]),
      [['team_rule.md', 'feedback', path.join(dir, 'team', 'team_rule.md')]],
    );
    assert.ok(view.warnings.some((w) => /missing\.md/.test(w)));
    assert.deepEqual(
      view.instructions.map((i) => [i.path, i.scope]),
      [[path.join(root, 'CLAUDE.md'), 'user']],
    );
    assert.equal(new Set(view.entries.map((e) => e.key)).size, view.entries.length, 'keys are unique');
  });

  it('lists pruned entries; restore puts back the exact bytes; delete for good only takes trash ids', async () => {
    const dir = path.join(root, 'memory');
    const { index } = writeMemoryFolder(dir, 12);
    const topicBytes = fs.readFileSync(path.join(dir, 'reference_003.md'));
    const record = await pruneEntry(dir, 'reference_003.md');
    const view = await buildMemoryView({ dir });
    assert.deepEqual(
      view.trash.map((t) => [t.id, t.file, t.group, t.title]),
      [[record.id, 'reference_003.md', 'private', 'Entry 3']],
    );
    assert.equal(
      view.entries.some((e) => e.file === 'reference_003.md'),
      false,
    );
    await restoreEntry(dir, record.id);
    assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), index);
    assert.deepEqual(fs.readFileSync(path.join(dir, 'reference_003.md')), topicBytes);
    const again = await pruneEntry(dir, 'reference_003.md');
    await assert.rejects(deleteTrashEntry(dir, '../../etc'), /Not a trash id/);
    await deleteTrashEntry(dir, again.id);
    assert.deepEqual((await buildMemoryView({ dir })).trash, []);
  });

  it('without a folder says so and still lists the instructions', async () => {
    const view = await buildMemoryView({ dir: undefined });
    assert.equal(view.exists, false);
    assert.deepEqual(view.entries, []);
  });
});

describe('transcript facts and replaced messages', () => {
  it('orders responses, reads compactions with their summary, and the replaced lines back as text', async () => {
    const file = path.join(root, 's.jsonl');
    writeTranscript(file, 's', '/work/demo');
    const facts = (await transcriptFacts(file))!;
    assert.equal(facts.responseCount, 4);
    assert.equal(facts.responses.get('msg_3')!.index, 3);
    assert.equal(facts.responses.get('msg_3')!.preview, 'Third answer');
    assert.equal(facts.cwd, '/work/demo');
    assert.equal(facts.compactions.length, 1);
    const c = facts.compactions[0];
    assert.deepEqual(
      [c.id, c.stage, c.trigger, c.tokensBefore, c.tokensAfter, c.durationMs, c.modelCalls, c.replacedLines, c.summary],
      ['evt-1', 'full', 'auto', 3010, 400, 1234, 1, 6, 'Summary of the first three turns.'],
    );
    const byRange = await readReplacedMessages(file, { lineRange: c.lineRange });
    assert.deepEqual(
      byRange.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
    );
    assert.match(byRange[2].text, /\[tool result\]\n<img src=x onerror=alert\(1\)>/);
    const byIds = await readReplacedMessages(file, { uuids: ['u1', 'a1'] });
    assert.deepEqual(byIds, [
      { role: 'user', text: 'First question' },
      { role: 'assistant', text: 'First answer' },
    ]);
    const long = clipForWebview([{ role: 'user', text: 'x'.repeat(DETAIL_TEXT_MAX_CHARS + 5) }]);
    assert.match(long[0].text, /5 more characters/);
  });
});

describe('notes view', () => {
  it('gives every section with tokens against its cap, when it was updated and which response it covers', async () => {
    const transcript = path.join(root, 's.jsonl');
    writeTranscript(transcript, 's', '/w');
    const paths = sessionPaths(root, 's');
    writeFile(paths.summary, NOTES_TEXT);
    writeFile(
      paths.state,
      JSON.stringify({ version: 1, lastSummarizedMessageId: 'msg_2', updatedAt: '2026-01-02T10:00:30.000Z' }),
    );
    const view = await buildNotesView({
      summaryPath: paths.summary,
      statePath: paths.state,
      facts: await transcriptFacts(transcript),
      countTokens: count,
    });
    assert.equal(view.exists, true);
    assert.equal(view.sections.length, 10);
    assert.equal(view.sections[0].heading, 'Session Title');
    assert.equal(view.sections[1].markdown, 'Editing src/greet.js <img src=x onerror=alert(1)>');
    assert.equal(view.sections[1].cap, 2000);
    assert.equal(view.fileCap, 12000);
    assert.equal(view.updatedAt, Date.parse('2026-01-02T10:00:30.000Z'));
    assert.deepEqual(
      { ...view.covers, at: undefined },
      { messageId: 'msg_2', response: 2, responses: 4, at: undefined, preview: 'Second answer' },
    );
    const live = await buildNotesView({
      summaryPath: paths.summary,
      statePath: paths.state,
      live: { updating: true, lastSummarizedMessageId: 'msg_4' },
    });
    assert.equal(live.updating, true);
    assert.equal(live.covers?.messageId, 'msg_4');
    assert.equal(
      (await buildNotesView({ summaryPath: path.join(root, 'none.md'), statePath: undefined })).exists,
      false,
    );
  });
});

describe('timeline', () => {
  const compaction = (id: string, at: number): CompactionEvent => ({
    id,
    stage: 'session-memory',
    trigger: 'auto',
    tokensBefore: 160_000,
    tokensAfter: 30_000,
    durationMs: 12,
    modelCalls: 0,
    replacedIds: ['u1', 'a1'],
    keptFrom: 2,
    summaryText: 'notes',
    at,
  });

  it('puts live events and transcript compactions in order; only the newest compaction is undoable', async () => {
    const transcript = path.join(root, 's.jsonl');
    writeTranscript(transcript, 's', '/w');
    const facts = await transcriptFacts(transcript);
    const live: TimelineEntry[] = [
      { kind: 'notes', at: 10, event: { type: 'notesCreated', path: 'p', template: 'default' } },
      { kind: 'memory', at: 20, event: { type: 'memorySaved', file: 'a.md', title: 'A', by: 'user' } },
      {
        kind: 'compaction',
        at: Date.parse('2026-02-01T00:00:00Z'),
        event: compaction('evt-2', Date.parse('2026-02-01T00:00:00Z')),
      },
      { kind: 'memory', at: 30, event: { type: 'memoryRecalled', files: ['a.md'] } },
    ];
    const timeline = buildTimeline({ live, facts, canUndo: true });
    assert.deepEqual(
      timeline.map((t) => [t.kind, t.id]),
      [
        ['notes', 'notes-0'],
        ['memory', 'memory-1'],
        ['compaction', 'evt-1'],
        ['compaction', 'evt-2'],
      ],
    );
    const [older, newest] = timeline.filter((t) => t.kind === 'compaction');
    assert.equal(older.kind === 'compaction' && older.undoable, false);
    assert.equal(newest.kind === 'compaction' && newest.undoable, true);
    assert.equal(newest.kind === 'compaction' && newest.replaced, 2);
    assert.equal(
      buildTimeline({ live, facts, canUndo: false }).some((t) => t.kind === 'compaction' && t.undoable),
      false,
    );
  });

  it('a compaction the transcript records as undone is marked undone and is not undoable again', () => {
    const facts: TranscriptFacts = {
      responses: new Map(),
      responseCount: 0,
      pinLines: [],
      compactions: [
        {
          id: 'evt-9',
          at: 1,
          stage: 'full',
          trigger: 'manual',
          tokensBefore: 10,
          lineRange: [1, 2],
          replacedLines: 2,
          trimmed: 0,
        },
        {
          id: 'b2',
          at: 2,
          stage: 'undo',
          trigger: 'manual',
          tokensBefore: 0,
          lineRange: [3, 3],
          replacedLines: 0,
          trimmed: 0,
          undoes: 'evt-9',
        },
      ],
    };
    const timeline = buildTimeline({ facts, canUndo: true });
    assert.equal(
      timeline.every((t) => t.kind !== 'compaction' || !t.undoable),
      true,
    );
    assert.deepEqual(
      timeline.map((t) => t.kind === 'compaction' && [t.id, t.undone === true]),
      [
        ['evt-9', true],
        ['b2', false],
      ],
    );
  });
});

describe('sources', () => {
  it("finds Claude Code's folder, the projects of a root, sessions and message lines", async () => {
    assert.equal(claudeConfigDir({}, '/home/me'), '/home/me/.claude');
    assert.equal(claudeConfigDir({ CLAUDE_CONFIG_DIR: '~/cc' }, '/home/me'), '/home/me/cc');
    const project = path.join(root, 'projects', '-w-demo');
    writeTranscript(path.join(project, 's1.jsonl'), 's1', '/w/demo');
    writeFile(path.join(project, 'memory', 'MEMORY.md'), '');
    fs.mkdirSync(path.join(root, 'projects', '-w-empty'));
    const projects = await listProjects(root);
    assert.deepEqual(
      projects.map((p) => [p.key, p.sessions, p.hasMemory]),
      [
        ['-w-demo', 1, true],
        ['-w-empty', 0, false],
      ],
    );
    assert.equal(await lineOfMessage(path.join(project, 's1.jsonl'), 'a2'), 4);
    assert.equal(isSessionId('0d6c0bd6-9a1e-4f5e-8a5e-1c2d3e4f5a6b'), true);
    assert.equal(isSessionId('../x'), false);
    assert.throws(() => sessionPaths(project, '../../etc/passwd'), /Not a session id/);
  });
});

describe('snapshot', () => {
  it('builds a session read from disk: gauge from the transcript, notes, memory and timeline with memory writes', async () => {
    const project = path.join(root, 'projects', '-w-demo');
    const paths = sessionPaths(project, 's1');
    writeTranscript(paths.transcript, 's1', '/w/demo');
    writeFile(paths.summary, NOTES_TEXT);
    writeFile(
      paths.state,
      JSON.stringify({ version: 1, lastSummarizedMessageId: 'msg_3', updatedAt: '2026-01-02T10:00:20.000Z' }),
    );
    const memoryDir = path.join(project, 'memory');
    writeMemoryFolder(memoryDir, 20);
    writeFile(
      path.join(memoryDir, 'origin.md'),
      '---\nname: From s1\ndescription: d\ntype: user\noriginSessionId: s1\n---\nbody\n',
    );
    const input: SnapshotInput = {
      source: { kind: 'project', label: 'Project', readOnly: false, root, projectKey: '-w-demo' },
      sessionId: 's1',
      transcriptPath: paths.transcript,
      settings: resolveSettings({ contextWindow: 10_000, maxOutputTokens: 1_000 }).settings,
      notes: { summaryPath: paths.summary, statePath: paths.state },
      memoryDir,
      instructions: { cwd: undefined, configDir: root, trusted: true },
      canUndoCompaction: false,
      now: Date.now(),
      countTokens: count,
    };
    const snap = await buildInspectorSnapshot(input);
    assert.ok(snap.gauge && snap.gauge.usedTokens >= 610 && snap.gauge.window === 10_000, JSON.stringify(snap.gauge));
    assert.deepEqual(snap.gauge!.marks, [60, 80, 100]);
    assert.equal(snap.gauge!.reservedForOutput, 1_000);
    assert.equal(
      snap.gauge!.breakdown.reduce((n, c) => n + c.tokens, 0),
      snap.gauge!.usedTokens,
    );
    assert.equal(snap.notes.sections.length, 10);
    assert.equal(snap.notes.covers?.response, 3);
    assert.equal(snap.memory.entries.length, 20);
    const kinds = snap.timeline.map((t) => `${t.kind}:${t.kind === 'memory' ? t.files.join() : t.id}`);
    assert.ok(kinds.includes('compaction:evt-1'), kinds.join(' '));
    assert.ok(kinds.includes('memory:origin.md'), kinds.join(' '));
    assert.ok(kinds.includes('notes:notes-disk'), kinds.join(' '));
    assert.ok(JSON.stringify(snap).length < 200_000);

    // A changed window or mark reframes the same measure (the transcript is not read again for it).
    const changed = resolveSettings({ contextWindow: 20_000, 'compaction.microcompactPercent': 40 }).settings;
    const again = await buildInspectorSnapshot({ ...input, settings: changed });
    assert.deepEqual(
      [again.gauge!.window, again.gauge!.marks, again.gauge!.usedTokens],
      [20_000, [40, 80, 100], snap.gauge!.usedTokens],
    );
  });
});
