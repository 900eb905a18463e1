// A setup file of every test run (vitest.shared.ts): `describe.each`, `it.each` and `test.each`
// over an empty table fail instead of defining no test. Such tables are computed (the files of a
// fixture folder, the operations of the spec, the public packages), and an empty one means the
// computation found nothing, which would otherwise pass silently.
import { describe, it, test } from "vitest";

type Each = (table: unknown, ...rest: unknown[]) => (name: unknown, ...args: unknown[]) => unknown;

/** Marks an `each` already guarded: without isolation, one process runs this file once per test file. */
const GUARDED = Symbol.for("marketapi.nonEmptyTables");

for (const [label, api] of [
  ["describe", describe],
  ["it", it],
  ["test", test],
] as const) {
  const target = api as unknown as { each: Each & { [GUARDED]?: true } };
  if (target.each[GUARDED]) continue;
  const each = target.each;
  target.each = (table, ...rest) => {
    if (!Array.isArray(table) || table.length > 0) return each.call(api, table, ...rest);
    return (name: unknown) => {
      throw new Error(
        `${label}.each(...)(${JSON.stringify(String(name))}) got an empty table: the list it was computed from is empty, so it would define no test and pass`,
      );
    };
  };
  target.each[GUARDED] = true;
}
