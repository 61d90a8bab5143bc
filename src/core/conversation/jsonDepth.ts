// How deep parsed JSON nests, without recursion (the point is to survive 200,000 levels, which
// JSON.parse accepts and JSON.stringify does not). The walk visits objects and arrays only, never the
// characters of strings, so it costs a few steps for a typical transcript line of any length.

/** Whether a parsed value nests deeper than `limit` (a scalar is depth 0, `{}` and `[]` depth 1). */
export function valueNestsDeeper(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop() as object;
    const d = depths.pop() as number;
    if (d > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        values.push(child as object);
        depths.push(d + 1);
      }
    }
  }
  return false;
}
