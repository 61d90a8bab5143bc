import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasHiddenChars, hiddenCharsIn, showHiddenChars, splitHiddenChars } from '../../../src/protocol/hiddenChars';

// Bidi controls and zero-width characters, written out so a name cannot read as another.
describe('hidden characters', () => {
  it('writes out every bidi control and zero-width character, and nothing else', () => {
    const hidden = [
      0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066, 0x2067,
      0x2068, 0x2069, 0xfeff,
    ];
    for (const code of hidden) {
      const char = String.fromCodePoint(code);
      assert.equal(showHiddenChars(`a${char}b`), `a<U+${code.toString(16).toUpperCase().padStart(4, '0')}>b`);
      assert.ok(hasHiddenChars(char));
    }
    for (const text of ['plain', '中文', 'עברית', 'العربية', 'emoji 😀', 'tab\tand\nnewline', '\u00A0nbsp']) {
      assert.equal(showHiddenChars(text), text);
      assert.equal(hasHiddenChars(text), false);
    }
  });

  it('file<RLO>gpj.exe reads as what it is', () => {
    assert.equal(showHiddenChars('file\u202Egpj.exe'), 'file<U+202E>gpj.exe');
    assert.deepEqual(splitHiddenChars('file\u202Egpj.exe'), ['file', { hidden: '<U+202E>' }, 'gpj.exe']);
    assert.deepEqual(splitHiddenChars('\u200B\u200Bx'), [{ hidden: '<U+200B>' }, { hidden: '<U+200B>' }, 'x']);
    assert.deepEqual(splitHiddenChars('none'), ['none']);
  });

  it('lists the distinct characters of several texts', () => {
    assert.deepEqual(hiddenCharsIn('a\u202Eb', 'c\u200Bd\u202E', 'plain'), ['<U+202E>', '<U+200B>']);
    assert.deepEqual(hiddenCharsIn('plain'), []);
    // No call leaves state behind for the next (a global pattern's lastIndex once made the split after a
    // test start past the character it had just found).
    assert.equal(hasHiddenChars('\u202E'), true);
    assert.equal(hasHiddenChars('\u202E'), true);
    assert.equal(hasHiddenChars('Is file\u202Egpj.exe a picture?'), true);
    assert.deepEqual(splitHiddenChars('Is file\u202Egpj.exe a picture?'), [
      'Is file',
      { hidden: '<U+202E>' },
      'gpj.exe a picture?',
    ]);
    assert.equal(showHiddenChars('a\u202Eb'), 'a<U+202E>b');
    assert.deepEqual(splitHiddenChars('a\u202Eb'), ['a', { hidden: '<U+202E>' }, 'b']);
  });
});
