// A session's paths are worked out once as it opens (memory/sessionPaths.ts) and are the folders the
// older per-module helpers give, so the memory, transcripts and notes a user already has are found.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  findGitRoot,
  projectDir,
  sessionTranscriptPath,
  subagentTranscriptIn,
  subagentTranscriptPath,
} from '../../../src/core/conversation/projectKey';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import {
  autoMemoryDir,
  MEMORY_INDEX_FILE,
  teamMemoryDir,
  TRASH_DIR_NAME,
} from '../../../src/core/memory/autoMemory/memoryPaths';
import { cursorFileFor } from '../../../src/core/memory/autoMemory/messageCursor';
import { sessionPathsFor } from '../../../src/core/memory/sessionPaths';
import { sessionNotesPaths } from '../../../src/core/memory/sessionNotes/paths';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();

/** A repository with a sub-folder to work in: memory is keyed by the root, transcripts by the sub-folder. */
function repoWithSubfolder(): { root: string; cwd: string; dataDir: string } {
  const root = tempDir('engram-paths-repo-');
  fs.mkdirSync(path.join(root, '.git'));
  const cwd = path.join(root, 'packages', 'app');
  fs.mkdirSync(cwd, { recursive: true });
  return { root, cwd, dataDir: tempDir('engram-paths-data-') };
}

describe('session paths', () => {
  it('are the folders the per-module helpers give, inside a repository and outside one', async () => {
    const inRepo = repoWithSubfolder();
    const outside = { root: undefined, cwd: tempDir('engram-paths-plain-'), dataDir: tempDir('engram-paths-data-') };
    for (const { root, cwd, dataDir } of [inRepo, outside]) {
      const sessionId = 'a-session';
      const paths = await sessionPathsFor({ dataDir, cwd, sessionId });
      const memoryDir = await autoMemoryDir(dataDir, cwd);
      const transcript = sessionTranscriptPath(dataDir, cwd, sessionId);
      assert.deepEqual(paths, {
        dataDir,
        cwd,
        gitRoot: root,
        sessionId,
        projectDir: projectDir(dataDir, cwd),
        transcript,
        sessionDir: transcript.replace(/\.jsonl$/, ''),
        memoryCursor: cursorFileFor(transcript),
        notes: sessionNotesPaths(dataDir, cwd, sessionId),
        memoryDir,
        memoryIndex: path.join(memoryDir, MEMORY_INDEX_FILE),
        teamDir: teamMemoryDir(memoryDir),
        trashDir: path.join(memoryDir, TRASH_DIR_NAME),
      });
      assert.equal(subagentTranscriptIn(paths.sessionDir, 'x1'), subagentTranscriptPath(dataDir, cwd, sessionId, 'x1'));
    }
    // In the repository the memory is the root's, shared by every folder of it.
    const fromRoot = await sessionPathsFor({ dataDir: inRepo.dataDir, cwd: inRepo.root, sessionId: 's2' });
    const fromSub = await sessionPathsFor({ dataDir: inRepo.dataDir, cwd: inRepo.cwd, sessionId: 's2' });
    assert.equal(fromSub.memoryDir, fromRoot.memoryDir);
    assert.notEqual(fromSub.projectDir, fromRoot.projectDir);
  });

  it('opening a session looks for the git root once, and its parts use those paths', async () => {
    const { root, cwd, dataDir } = repoWithSubfolder();
    // A memory saved before: the session must find it where it always was.
    const oldMemoryDir = await autoMemoryDir(dataDir, cwd);
    fs.mkdirSync(oldMemoryDir, { recursive: true });
    fs.writeFileSync(path.join(oldMemoryDir, 'tabs.md'), '---\nname: tabs\ndescription: tabs\n---\nUse tabs.\n');
    fs.writeFileSync(path.join(oldMemoryDir, MEMORY_INDEX_FILE), '- [Tabs](tabs.md) — use tabs\n');
    const looked: string[] = [];
    const countingFinder = (dir: string): Promise<string | undefined> => {
      looked.push(dir);
      return findGitRoot(dir);
    };
    const session = await openEngramSession(
      {
        cwd,
        dataDir,
        client: new AnthropicModelClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' }),
        trusted: true,
        permissionPrompt: { ask: async () => 'allowOnce' },
        version: '0.0.0-test',
        entrypoint: 'test',
      },
      new SettingsStore({ 'teamMemory.enabled': true }),
      countingFinder,
    );
    try {
      assert.deepEqual(looked, [cwd]);
      const expected = await sessionPathsFor({ dataDir, cwd, sessionId: session.sessionId });
      assert.deepEqual(session.paths, expected);
      assert.equal(session.paths.gitRoot, root);
      assert.equal(session.transcriptPath, sessionTranscriptPath(dataDir, cwd, session.sessionId));
      assert.equal(session.memoryDir, oldMemoryDir);
      assert.match(session.agent.systemPrompt.map((b) => b.text).join('\n'), /use tabs/);
      assert.ok(session.notes, 'session notes are on');
    } finally {
      await session.finish();
    }
  });
});
