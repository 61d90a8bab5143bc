// The cap banner's, use counts' and Health view's words exist in English and Simplified Chinese, with the same {n} arguments.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAP_STRINGS, capText } from '../../../webview/inspector/capStrings';
import { HEALTH_STRINGS, healthText } from '../../../webview/inspector/healthStrings';

/** Each key with the placeholders its text uses: both languages must have the same. */
const shape = (table: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(table).map(([key, text]) => [
      key,
      [...text.matchAll(/\{(\d+)\}/g)]
        .map((m) => m[1])
        .sort()
        .join(','),
    ]),
  );

test('the cap banner has every string in both languages, with the same arguments', () => {
  assert.deepEqual(shape(CAP_STRINGS.zh), shape(CAP_STRINGS.en));
  assert.deepEqual(
    Object.values(CAP_STRINGS.zh).filter((text) => !text.trim()),
    [],
  );
  assert.equal(capText('zh-CN', 'usedTimes', 7), '使用 7 次');
  assert.equal(capText('en', 'capFigures', 168, 200, '21.3', '25'), '168 of 200 lines, 21.3 of 25 KB');
});

test('the Health view has every string in both languages, with the same arguments', () => {
  assert.deepEqual(shape(HEALTH_STRINGS.zh), shape(HEALTH_STRINGS.en));
  assert.deepEqual(
    Object.values(HEALTH_STRINGS.zh).filter((text) => !text.trim()),
    [],
  );
  for (const kind of ['path', 'symbol', 'command'])
    assert.equal(typeof healthText('zh-cn', `kind_${kind}` as never), 'string');
  assert.equal(healthText('en', 'healthPairs_one', 1), '1 duplicate pair');
});
