// x-order-arithmetic: how an order answer's numbers and status relate. A field renamed, an
// invariant dropped (a timeInForce that may now rest) or a status clients have not seen is
// breaking; a new invariant, or a status that can no longer appear, is compatible.
import { type At, child } from "../comparison.js";
import { changedFields, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-order-arithmetic";
const strings = (at: At) => (Array.isArray(at.value) ? at.value.map(String) : []);

export const orderArithmetic: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "the arithmetic of its order answers")) return;
    changedFields(c, o, n, KEY, ["executedQty", "quoteQty", "fills"]);
    const lists: Array<[string, "promise" | "values"]> = [
      ["neverRest", "promise"],
      ["allOrNothing", "promise"],
      ["status/none", "values"],
      ["status/part", "values"],
      ["status/all", "values"],
    ];
    for (const [path, sort] of lists) {
      const [b, a] = [child(o, ...path.split("/")), child(n, ...path.split("/"))];
      const [before, after] = [strings(b), strings(a)];
      const added = after.filter((v) => !before.includes(v));
      const removed = before.filter((v) => !after.includes(v));
      // For promises a removal weakens them; for status lists an addition is a value clients have not seen.
      const weakening = sort === "promise" ? removed : added;
      const strengthening = sort === "promise" ? added : removed;
      if (weakening.length > 0)
        c.report(b, a, {
          kind: "order-arithmetic-weakened",
          class: "breaking",
          message: `${KEY} ${path}: ${weakening.join(", ")} ${sort === "promise" ? "no longer promised" : "may now appear"}`,
        });
      if (strengthening.length > 0)
        c.report(b, a, {
          kind: "order-arithmetic-strengthened",
          class: "compatible",
          breaksImplementations: true,
          message: `${KEY} ${path}: ${strengthening.join(", ")} ${sort === "promise" ? "now promised" : "can no longer appear"}`,
        });
    }
  },
};
