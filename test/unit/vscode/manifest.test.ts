import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

// The manifest as the Extensions view and the Settings editor show it.
const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  icon?: string;
  contributes: {
    menus: Record<string, Array<{ command: string; when?: string }>>;
    configuration: { properties: Record<string, { description: string }> };
  };
};
const nls = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')) as Record<string, string>;

describe('package.json', () => {
  it('names a 128x128 PNG icon', () => {
    assert.ok(manifest.icon, 'no "icon" in package.json');
    const png = fs.readFileSync(path.join(root, manifest.icon));
    assert.equal(png.subarray(1, 4).toString('ascii'), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'IHDR width and height');
  });

  it('hides "Engram: Focus Chat" from the palette, where VS Code\'s own "Focus on Chat View" does the same', () => {
    const palette = manifest.contributes.menus.commandPalette ?? [];
    assert.deepEqual(
      palette.find((m) => m.command === 'engram.focusChat'),
      { command: 'engram.focusChat', when: 'false' },
    );
  });

  it('describes every setting in full sentences, in English and in Chinese', () => {
    const en = nls('package.nls.json');
    const zh = nls('package.nls.zh-cn.json');
    for (const [key, prop] of Object.entries(manifest.contributes.configuration.properties)) {
      const id = /^%(.+)%$/.exec(prop.description)?.[1];
      assert.ok(id, `${key}: its description is not localized`);
      const english = en[id];
      const chinese = zh[id];
      // A fragment continues the setting above it ("...and at most ...") or is a bare noun phrase.
      assert.match(english, /^[A-Z"][\s\S]*[.)]$/, `${key} (en): "${english}"`);
      assert.doesNotMatch(english, /^\.\.\.|…/, `${key} (en): "${english}"`);
      assert.doesNotMatch(
        english,
        /^(Mark|Context size|Context growth|Model used|Base URL|Address|Maximum|Where) /,
        `${key} (en) is a noun phrase: "${english}"`,
      );
      assert.match(chinese, /。$/, `${key} (zh-cn): "${chinese}"`);
      assert.doesNotMatch(chinese, /^……|^\.\.\./, `${key} (zh-cn): "${chinese}"`);
    }
  });
});
