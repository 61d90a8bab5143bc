// A tool whose output is `size` characters, so compaction tests choose how much each result weighs.
import type { ToolSchema } from '../../../src/core/conversation/types';
import type { Tool } from '../../../src/core/tools/tool';

/**
 * `fill` repeats to the size; `labelled` starts the output with `<size>:<n>:` so results differ (n counts
 * the calls; an input `copy` stands for n instead, so two calls with the same size and copy give the
 * same bytes: a repeated output, which the agent sends once and then as a note).
 */
export function outputTool(opts: { fill?: string; labelled?: boolean } = {}): Tool {
  const fill = opts.fill ?? 'o';
  const labelled = opts.labelled ?? true;
  let calls = 0;
  return {
    name: 'Output',
    schema: {
      name: 'Output',
      description: 'Prints size characters.',
      input_schema: { type: 'object', properties: { size: { type: 'number' } } },
    } as ToolSchema,
    readOnly: true,
    concurrencySafe: true,
    validate: () => null,
    summarize: (input) => `Output ${String(input.size)}`,
    run: async (input) => {
      const n = input.copy ?? ++calls;
      return {
        content: (labelled ? `${String(input.size)}:${String(n)}:` : '').padEnd(Number(input.size), fill),
        isError: false,
      };
    },
  };
}
