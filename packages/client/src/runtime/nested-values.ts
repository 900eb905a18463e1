// Values nested deeper than an OpenAPI style defines, in the bracket convention that deepObject
// starts and that servers of form bodies read (Rails, PHP, Stripe, the `qs` package):
// `billing[address][city]=Paris`, `expand[]=customer` for an array of scalars, and
// `line_items[0][price]=p_1` for an array of objects or arrays, whose items need their index to
// stay together. OpenAPI defines deepObject for one level of an object only; this is its reading
// of everything below, and of an array.

/** One leaf of a nested value: the segments of its name (`["billing", "address", "city"]`) and the scalar. */
export interface BracketEntry {
  /** The top-level name, then one segment per level; "" for an array of scalars' `[]`. */
  readonly path: readonly string[];
  readonly value: unknown;
}

/** Whether a value is written as it is (not an object or an array to open). */
export function isScalar(value: unknown): boolean {
  return typeof value !== "object" || value === null || value instanceof Date;
}

/**
 * The leaves of `value` below `path`, in the value's own order; undefined and null leaves are left
 * out, as they are at the top level.
 */
export function bracketEntries(path: readonly string[], value: unknown): BracketEntry[] {
  if (value === undefined || value === null) return [];
  if (isScalar(value)) return [{ path, value }];
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return scalarItems(path, value);
    return value.flatMap((item, index) => bracketEntries([...path, String(index)], item));
  }
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
    bracketEntries([...path, key], item),
  );
}

function scalarItems(path: readonly string[], items: readonly unknown[]): BracketEntry[] {
  return items
    .filter((item) => item !== undefined && item !== null)
    .map((item) => ({ path: [...path, ""], value: item }));
}

/** `name[a][b]` with each segment percent-encoded by `encode` and the brackets as they are. */
export function bracketName(path: readonly string[], encode: (text: string) => string): string {
  const [name = "", ...rest] = path;
  return encode(name) + rest.map((segment) => `[${encode(segment)}]`).join("");
}
