import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDefaultTools } from '../../../src/core/tools/defaultTools';
import { makeCtx } from './toolTestKit';

describe('createDefaultTools', () => {
  const tools = createDefaultTools();

  it("offers Claude Code's tool names with object schemas", () => {
    assert.deepEqual(
      tools.map((t) => t.name),
      ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash'],
    );
    for (const t of tools) {
      assert.equal(t.schema.name, t.name);
      assert.equal(t.schema.input_schema.type, 'object');
      assert.ok(
        t.schema.description.length > 20 && t.schema.description.length < 600,
        `${t.name} description stays lean`,
      );
    }
  });

  it('marks only search and read tools as read-only and parallel-safe', () => {
    const flags = Object.fromEntries(tools.map((t) => [t.name, [t.readOnly, t.concurrencySafe]]));
    assert.deepEqual(flags, {
      Read: [true, true],
      Write: [false, false],
      Edit: [false, false],
      Glob: [true, true],
      Grep: [true, true],
      Bash: [false, false],
    });
  });

  it('never throws for malformed input', async () => {
    for (const t of tools) {
      for (const bad of [null, 'x', [], {}, { file_path: 1, pattern: 2, command: 3 }]) {
        assert.equal(typeof t.validate(bad), 'string', `${t.name} rejects ${JSON.stringify(bad)}`);
        const r = await t.run(bad as never, makeCtx('/'));
        assert.equal(r.isError, true);
        assert.match(r.content, new RegExp(`^Invalid input for ${t.name}`));
        assert.equal(typeof t.summarize(bad as never), 'string');
      }
    }
  });
});
