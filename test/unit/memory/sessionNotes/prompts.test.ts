// Snapshot of what the notes updater is told, so a wording change shows up in review as a diff of the
// prompt itself. Regenerate with UPDATE_SNAPSHOTS=1 after an intended change.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  buildCondensePrompt,
  buildUpdatePrompt,
  NOTES_UPDATE_MARKER,
} from '../../../../src/core/memory/sessionNotes/prompts';
import { DEFAULT_CAPS, DEFAULT_TEMPLATE } from '../../../../src/core/memory/sessionNotes/template';
import { assertSnapshot } from '../../support/snapshot';

const SNAPSHOT = path.join(__dirname, 'snapshots', 'sessionNotesPrompts.md');
const NOTES_PATH = '/home/me/.engram/projects/-work-demo/0b8e-session/session-memory/summary.md';

function render(): string {
  const update = buildUpdatePrompt({ notesPath: NOTES_PATH, notesText: DEFAULT_TEMPLATE, caps: DEFAULT_CAPS });
  const condense = buildCondensePrompt({
    notesPath: NOTES_PATH,
    notesText: DEFAULT_TEMPLATE.replace(
      '_One terse line per step: what was tried, what was done_\n',
      '_One terse line per step: what was tried, what was done_\n- (long worklog)\n',
    ),
    caps: DEFAULT_CAPS,
    over: { sections: [{ heading: 'Worklog', tokens: 2_450 }], file: { tokens: 12_300 } },
  });
  return `## Update\n\n${update}\n\n## Condense\n\n${condense}\n`;
}

describe('notes updater prompts', () => {
  it('match the snapshot', () => {
    const text = render();
    assertSnapshot(SNAPSHOT, text);
  });

  it('start with the marker (how logs and test servers recognise the updater) and carry the notes verbatim', () => {
    const update = buildUpdatePrompt({ notesPath: NOTES_PATH, notesText: 'x\n<y>', caps: DEFAULT_CAPS });
    assert.ok(update.startsWith(`${NOTES_UPDATE_MARKER}\n`));
    assert.ok(update.includes('<notes>\nx\n<y>\n</notes>'));
    assert.ok(update.includes(NOTES_PATH));
    const condense = buildCondensePrompt({
      notesPath: NOTES_PATH,
      notesText: 'x',
      caps: DEFAULT_CAPS,
      over: { sections: [], file: { tokens: 13_000 } },
    });
    assert.match(condense, /the whole file: 13000 tokens \(limit 12000\)/);
    assert.match(condense, /Shorten the longest sections/);
  });
});
