// Snapshot of what auto memory tells the model (system prompt section, "Remember" message, extraction
// task), so a wording change shows up in review as a diff of the prompt itself, plus their cost.
// Regenerate with UPDATE_SNAPSHOTS=1 after an intended change.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ToolGate } from '../../../../src/core/agent/permissions';
import { buildSystemPrompt, composeSystemPrompt } from '../../../../src/core/agent/systemPrompt';
import { memoryWriteGate } from '../../../../src/core/memory/autoMemory/memoryPermissions';
import {
  EXTRACTION_MARKER,
  MEMORY_GUIDANCE,
  TEAM_MEMORY_GUIDANCE,
  extractionPrompt,
  memorySystemSlot,
  rememberPrompt,
  teamSystemSlot,
} from '../../../../src/core/memory/autoMemory/memoryPrompts';
import { countTokens } from '../../../../src/core/tokens/tokenizer';
import { createDefaultTools } from '../../../../src/core/tools/defaultTools';
import { assertSnapshot } from '../../support/snapshot';

const SNAPSHOT = path.join(__dirname, 'snapshots', 'autoMemoryPrompts.md');
const DIR = '/home/me/.engram/projects/-work-demo/memory';

function render(): string {
  const [, env] = buildSystemPrompt({
    cwd: '/work/demo',
    platform: 'linux',
    date: '2026-11-30',
    memory: memorySystemSlot({
      dir: DIR,
      text: '- [Real DB in tests](feedback_real_db.md) — no mocks for the database',
    }),
  });
  const extraction = extractionPrompt({
    memoryDir: DIR,
    newMessages: 6,
    topics: [
      { file: 'feedback_real_db.md', type: 'feedback', description: 'integration tests hit a real database' },
      { file: 'notes.md', type: null },
    ],
  });
  return `## System prompt, second block\n\n${env.text}\n\n## Remember\n\n${rememberPrompt('  we deploy on Fridays only  ')}\n\n## Extraction\n\n${extraction}\n\n${renderTeam()}`;
}

/** The same with team memory on: only what it adds. */
function renderTeam(): string {
  const { parts } = composeSystemPrompt({
    cwd: '/work/demo',
    platform: 'linux',
    date: '2026-11-30',
    memory: memorySystemSlot({ dir: DIR, text: '' }),
    teamMemory: teamSystemSlot(
      { dir: `${DIR}/team`, text: '- [Deploy steps](deploy.md) — make deploy, never on Fridays' },
      'acme/widgets',
    ),
  });
  const extraction = extractionPrompt({
    memoryDir: DIR,
    newMessages: 2,
    topics: [],
    team: {
      dir: `${DIR}/team`,
      repo: 'acme/widgets',
      topics: [{ file: 'deploy.md', type: 'project', description: 'how the service is deployed' }],
    },
  });
  return `## With team memory: the system prompt's team part\n${parts.teamMemoryIndex}\n\n## With team memory: Remember\n\n${rememberPrompt('we deploy with make deploy', { team: true })}\n\n## With team memory: Extraction\n\n${extraction}\n`;
}

describe('auto memory prompts', () => {
  it('match the snapshot', () => {
    const text = render();
    assertSnapshot(SNAPSHOT, text);
  });

  it('stay cheap: the guidance sent on every call is under 300 tokens, the extraction task under 700', () => {
    assert.ok(countTokens(MEMORY_GUIDANCE) < 300, `${countTokens(MEMORY_GUIDANCE)}`);
    const system = buildSystemPrompt({
      cwd: '/w',
      platform: 'linux',
      date: '2026-01-01',
      memory: memorySystemSlot({ dir: DIR, text: '' }),
    });
    const total =
      countTokens(system.map((b) => b.text).join('\n')) +
      countTokens(JSON.stringify(createDefaultTools().map((t) => t.schema)));
    assert.ok(total < 2300, `${total}`);
    assert.ok(countTokens(extractionPrompt({ memoryDir: DIR, newMessages: 2, topics: [] })) < 700);
    // Team memory adds to every call too: its guidance stays short.
    assert.ok(countTokens(TEAM_MEMORY_GUIDANCE) < 200, `${countTokens(TEAM_MEMORY_GUIDANCE)}`);
    assert.ok(
      countTokens(
        extractionPrompt({
          memoryDir: DIR,
          newMessages: 2,
          topics: [],
          team: { dir: `${DIR}/team`, repo: 'a/b', topics: [] },
        }),
      ) < 900,
    );
  });

  it('say what is needed', () => {
    assert.ok(extractionPrompt({ memoryDir: DIR, newMessages: 1, topics: [] }).startsWith(EXTRACTION_MARKER));
    assert.match(extractionPrompt({ memoryDir: DIR, newMessages: 1, topics: [] }), /the last 1 message above/);
    assert.match(extractionPrompt({ memoryDir: DIR, newMessages: 0, topics: [] }), /\(none yet\)/);
    assert.match(
      extractionPrompt({ memoryDir: DIR, newMessages: 3, topics: [], maxTurns: 3 }),
      /You have 3 model calls/,
    );
    assert.throws(() => rememberPrompt('   '), /empty/);
  });
});

describe('memoryWriteGate', () => {
  it('lets the main agent save memory without a prompt and hands everything else on', async () => {
    const asked: string[] = [];
    const fallback: ToolGate = async (tool) => {
      asked.push(tool.name);
      return { allow: false, reason: 'asked the user: no' };
    };
    const gate = memoryWriteGate(DIR, '/work/demo', fallback);
    const tools = new Map(createDefaultTools().map((t) => [t.name, t]));
    const call = { toolUseId: 't', summary: '', signal: new AbortController().signal };
    assert.deepEqual(await gate(tools.get('Write')!, { file_path: `${DIR}/feedback_x.md`, content: '' }, call), {
      allow: true,
    });
    assert.deepEqual(
      await gate(tools.get('Edit')!, { file_path: `${DIR}/MEMORY.md`, old_string: 'a', new_string: 'b' }, call),
      { allow: true },
    );
    assert.equal((await gate(tools.get('Write')!, { file_path: `${DIR}/../x.md`, content: '' }, call)).allow, false);
    assert.equal(
      (await gate(tools.get('Write')!, { file_path: '/work/demo/src/a.ts', content: '' }, call)).allow,
      false,
    );
    assert.equal((await gate(tools.get('Bash')!, { command: `rm ${DIR}/x.md` }, call)).allow, false);
    assert.deepEqual(asked, ['Write', 'Write', 'Bash']);
  });
});
