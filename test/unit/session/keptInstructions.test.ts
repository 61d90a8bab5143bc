// Issue 24, instructions: AGENTS.md is loaded beside CLAUDE.md, read again when a compaction rebuilds the
// system prompt (an edit made since is in the very next request), and each compaction records the files
// it kept, so the timeline of the live session, of the session resumed and of the transcript read from
// disk all say "kept: CLAUDE.md, AGENTS.md". An untrusted workspace sends neither.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildTimeline } from '../../../src/core/inspection/timelineView';
import { transcriptFacts } from '../../../src/core/inspection/transcriptFacts';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { EngramSession } from '../../../src/core/session/engramSession';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
const SUMMARY = {
  content: [
    { type: 'text' as const, text: '<analysis>a</analysis>\n<summary>\n1. Primary Request and Intent: hi\n</summary>' },
  ],
};

function open(where: { cwd: string; dataDir: string }, trusted = true, resumeSessionId?: string) {
  return openEngramSession(
    {
      ...where,
      ...(resumeSessionId ? { resumeSessionId } : {}),
      client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
      trusted,
      permissionPrompt: { ask: async () => 'allowOnce' },
      version: '0.0.0-test',
      entrypoint: 'test',
    },
    new SettingsStore({ 'sessionNotes.enabled': false, 'memory.enabled': false }),
  );
}

function project(): { cwd: string; dataDir: string } {
  const cwd = tempDir('engram-kept-ws-');
  fs.writeFileSync(path.join(cwd, 'AGENTS.md'), 'Agents rule: run npm test before you commit.\n');
  fs.writeFileSync(path.join(cwd, 'CLAUDE.md'), 'Claude rule: answer in English.\n');
  return { cwd, dataDir: tempDir('engram-kept-data-') };
}

const systemOf = (i: number): string => {
  const system = server.requests[i].body.system;
  return typeof system === 'string' ? system : (system ?? []).map((b) => b.text).join('\n');
};

async function turn(session: EngramSession, text: string): Promise<void> {
  server.enqueue({ content: [{ type: 'text', text: `ok: ${text}` }] });
  assert.equal((await session.runTurn(text)).reason, 'end_turn');
}

describe('instruction files through compaction', () => {
  it('sends AGENTS.md and CLAUDE.md, re-reads them after a compaction and records them as kept', async () => {
    const where = project();
    const session = await open(where);
    const firstRequest = server.requests.length;
    assert.deepEqual(
      session.instructionFiles.map((f) => path.basename(f.path)),
      ['AGENTS.md', 'CLAUDE.md'],
    );
    await turn(session, 'first');
    await turn(session, 'second');
    const first = systemOf(firstRequest);
    assert.match(first, /<instructions path="[^"]*AGENTS\.md" scope="project">\nAgents rule: run npm test/);
    assert.ok(first.indexOf('Agents rule') < first.indexOf('Claude rule'), 'CLAUDE.md reads as more specific');

    fs.writeFileSync(path.join(where.cwd, 'AGENTS.md'), 'Agents rule: run npm run lint too.\n');
    server.enqueue(SUMMARY);
    const result = await session.compactNow('full');
    assert.ok(result.ok, result.reason);
    const kept = [path.join(where.cwd, 'AGENTS.md'), path.join(where.cwd, 'CLAUDE.md')];
    assert.deepEqual(result.events[0].keptInstructions, kept);
    await turn(session, 'third');
    const after = systemOf(server.requests.length - 1);
    assert.match(after, /Agents rule: run npm run lint too\./, 'the edit made since is in the next request');
    assert.match(after, /Claude rule: answer in English\./);

    const live = buildTimeline({ live: session.timeline, canUndo: true, cwd: where.cwd });
    const view = live.find((e) => e.kind === 'compaction');
    assert.ok(view?.kind === 'compaction');
    assert.deepEqual(view.keptInstructions, ['AGENTS.md', 'CLAUDE.md']);
    await session.finish();

    const resumed = await open(where, true, session.sessionId);
    const entry = resumed.timeline.find((t) => t.kind === 'compaction');
    assert.ok(entry?.kind === 'compaction');
    assert.deepEqual(entry.event.keptInstructions, kept, 'a resumed session keeps it on its timeline');
    await resumed.finish();

    const facts = await transcriptFacts(session.transcriptPath);
    const disk = buildTimeline({ ...(facts ? { facts } : {}), canUndo: false, cwd: where.cwd });
    const fromDisk = disk.find((e) => e.kind === 'compaction');
    assert.ok(fromDisk?.kind === 'compaction');
    assert.deepEqual(fromDisk.keptInstructions, ['AGENTS.md', 'CLAUDE.md'], 'and so does the transcript on disk');
    // What it dropped is read back from the record too (the inspector on a session from disk lists it).
    assert.deepEqual(view.dropped?.userMessages, ['first', 'second']);
    assert.deepEqual(fromDisk.dropped, view.dropped);
  });

  it('sends neither file from an untrusted workspace, and a compaction keeps only the user file', async () => {
    const where = project();
    fs.mkdirSync(where.dataDir, { recursive: true });
    fs.writeFileSync(path.join(where.dataDir, 'CLAUDE.md'), 'User rule: be brief.\n');
    const session = await open(where, false);
    const firstRequest = server.requests.length;
    assert.deepEqual(
      session.instructionFiles.map((f) => f.scope),
      ['user'],
    );
    await turn(session, 'first');
    await turn(session, 'second');
    const system = systemOf(firstRequest);
    assert.match(system, /User rule: be brief\./);
    assert.doesNotMatch(system, /Agents rule|Claude rule/);
    server.enqueue(SUMMARY);
    const result = await session.compactNow('full');
    assert.ok(result.ok, result.reason);
    assert.deepEqual(result.events[0].keptInstructions, [path.join(where.dataDir, 'CLAUDE.md')]);
    await session.finish();
  });
});
