// Facts looked for a group of text at a time (carriedText.ts, issue 31): a compaction of a long session
// no longer builds the whole replacement text unless a fact is missing from every group, and the answer
// is the one a search of the whole text gives, facts that span two groups and path tails included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { notCarried, notCarriedInGroups } from '../../../src/core/compaction/carriedText';
import { normaliseFact } from '../../../src/core/compaction/droppedFacts';
import type { DroppedFacts } from '../../../src/core/compaction/types';

/** notCarriedInGroups over `parts` cut into groups after the given part indices; whether it built the whole. */
function inGroups(facts: DroppedFacts, parts: string[], cuts: number[]): { result: DroppedFacts; built: boolean } {
  const ends = [...new Set(cuts.map((c) => c % (parts.length + 1)))].sort((a, b) => a - b);
  let built = false;
  const result = notCarriedInGroups(
    facts,
    (visit) => {
      let from = 0;
      for (const end of [...ends, parts.length]) {
        const group = normaliseFact(parts.slice(from, end).join('\n'));
        from = Math.max(from, end);
        if (group !== '' && !visit(group)) return;
      }
    },
    () => {
      built = true;
      return normaliseFact(parts.join('\n'));
    },
  );
  return { result, built };
}

describe('facts looked for a group at a time', () => {
  it('are found or dropped as a search of the whole text finds them', () => {
    const char = fc.constantFrom('a', 'b', 'é', '1', '_', '/', '.', '-', ' ', '\n', 'x');
    const str = (max: number) => fc.array(char, { maxLength: max }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(
        fc.array(str(20), { minLength: 1, maxLength: 8 }),
        fc.array(str(10), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (parts, made, takes, cuts) => {
          const whole = normaliseFact(parts.join('\n'));
          // Facts drawn from the whole text (some span the places where groups meet) and made up.
          const taken = takes.map((t, i) => whole.slice(t % (whole.length + 1), (t % (whole.length + 1)) + 2 + i));
          const facts = [...new Set([...made, ...taken].map(normaliseFact).filter((f) => f !== ''))];
          const all: DroppedFacts = { paths: facts, commands: facts, errors: [], userMessages: facts };
          assert.deepEqual(inGroups(all, parts, cuts).result, notCarried(all, whole));
        },
      ),
      { numRuns: 1_500 },
    );
  });

  it('build the whole text only for a fact no group carries', () => {
    const parts = ['read /home/me/src/app.ts', 'ran npm test', 'then npm', 'test again'];
    const found = inGroups(
      { paths: ['/x/src/app.ts'], commands: ['npm test'], errors: [], userMessages: [] },
      parts,
      [1, 2, 3],
    );
    assert.deepEqual(found.result, { paths: [], commands: [], errors: [], userMessages: [] });
    assert.equal(found.built, false);
    // "npm test" across two groups ("then npm" | "test again") is still carried, found in the whole text.
    const spanning = inGroups(
      { paths: [], commands: ['npm test again', 'make'], errors: [], userMessages: [] },
      parts,
      [1, 2, 3],
    );
    assert.deepEqual(spanning.result.commands, ['make']);
    assert.equal(spanning.built, true);
  });
});
