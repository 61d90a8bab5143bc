// One memory model for both surfaces: `engram inspect --json` prints what the Memory Inspector draws
// for the same project (buildMemoryView), field for field: index entries with provenance, the cut-off
// line, missing and unindexed files, team memory, warnings, the trash and the user's CLAUDE.md.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../../src/cli/dispatcher';
import { buildInspectorSnapshot } from '../../../src/core/inspection/snapshotBuilder';
import { pruneEntry } from '../../../src/core/memory/autoMemory/memoryTrash';
import { defaultSettings } from '../../../src/core/settings/engramSettings';
import { countTokens, ensureTokenizer } from '../../../src/core/tokens/tokenizer';
import type { MemoryEntryView, MemoryView } from '../../../src/protocol/messages';
import { writeFile, writeMemoryFolder, writeTranscript } from './inspectorFixtures';

let root: string;
before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'engram-memview-')));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

async function inspectJson(
  argv: string[],
): Promise<{ projects: Array<{ key: string; memory: Record<string, unknown> }> }> {
  let stdout = '';
  const code = await runCli(['inspect', ...argv, '--json'], {
    stdout: (t) => void (stdout += t),
    stderr: () => undefined,
    env: {},
    cwd: root,
    signal: new AbortController().signal,
  });
  assert.equal(code, 0);
  return JSON.parse(stdout) as { projects: Array<{ key: string; memory: Record<string, unknown> }> };
}

/** An entry as the inspector has it, with the documented inspect fields in front (key order aside, the same object). */
const sameEntry = (e: MemoryEntryView): Record<string, unknown> => ({ ...e });

describe('memory view shared by `engram inspect` and the inspector', () => {
  it('prints the same entries, unindexed files, team memory, warnings, trash and instructions the inspector shows', async () => {
    await ensureTokenizer();
    const project = path.join(root, 'projects', '-w-demo');
    const memoryDir = path.join(project, 'memory');
    writeMemoryFolder(memoryDir, 230);
    writeFile(
      path.join(memoryDir, 'origin.md'),
      '---\nname: From s1\ndescription: d\ntype: user\noriginSessionId: s1\noriginMessageId: u1\n---\nbody\n',
    );
    await pruneEntry(memoryDir, 'reference_003.md');
    writeFile(path.join(root, 'CLAUDE.md'), '# User instructions\nBe brief.\n');
    writeTranscript(path.join(project, 's1.jsonl'), 's1', '/w/demo');

    const snap = await buildInspectorSnapshot({
      source: { kind: 'project', label: 'Project', readOnly: false, root, projectKey: '-w-demo' },
      sessionId: undefined,
      transcriptPath: undefined,
      settings: defaultSettings(),
      notes: { summaryPath: undefined, statePath: undefined },
      memoryDir,
      instructions: { cwd: undefined, configDir: root, trusted: true },
      canUndoCompaction: false,
      now: Date.now(),
      countTokens,
    });
    const shown: MemoryView = snap.memory;
    const printed = (await inspectJson(['--root', root])).projects[0].memory;

    assert.deepEqual(printed.entries, shown.entries.map(sameEntry));
    assert.deepEqual(printed.unindexedEntries, shown.unindexed.map(sameEntry));
    assert.deepEqual(
      printed.unindexed,
      shown.unindexed.map((e) => (e.group === 'team' ? `team/${e.file}` : e.file)),
    );
    for (const k of [
      'dir',
      'exists',
      'instructions',
      'loadedLines',
      'totalLines',
      'maxLines',
      'warnings',
      'trash',
    ] as const) {
      assert.deepEqual(printed[k], shown[k], k);
    }
    // What the model holds, so the comparison above is not between two empty lists.
    assert.deepEqual([shown.loadedLines, shown.totalLines], [200, 229], 'the pruned entry left the index');
    assert.ok(shown.entries.some((e) => e.group === 'team' && e.title === 'Team rule'));
    assert.ok(shown.entries.some((e) => e.missing));
    assert.ok(shown.unindexed.some((e) => e.file === 'origin.md' && e.origin?.sessionId === 's1'));
    assert.deepEqual(
      shown.trash.map((t) => t.file),
      ['reference_003.md'],
    );
    assert.equal(shown.instructions.length, 1);
    assert.ok(
      shown.warnings.some((w) => w.includes('missing.md')),
      shown.warnings.join('\n'),
    );
  });
});
