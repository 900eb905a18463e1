// x-parameter-placement: where parameters may travel. Losing a place refuses clients that use it.
import { show } from "../comparison.js";
import type { ExtensionRule } from "./extension.js";

/** The places each value allows; absent means the query string only. */
const PLACES: Record<string, string[]> = { "query-or-form-body": ["query", "form body"] };

export const parameterPlacement: ExtensionRule = {
  key: "x-parameter-placement",
  compare(c, o, n) {
    if (o.value === n.value) return;
    const before = o.value === undefined ? ["query"] : PLACES[o.value as string];
    const after = n.value === undefined ? ["query"] : PLACES[n.value as string];
    const lost = before && after ? before.filter((p) => !after.includes(p)) : undefined;
    const gained = before && after ? after.filter((p) => !before.includes(p)) : undefined;
    if (lost === undefined || gained === undefined || (lost.length > 0 && gained.length > 0)) {
      c.report(o, n, {
        kind: "parameter-placement-changed",
        class: "breaking",
        breaksImplementations: true,
        message: `x-parameter-placement changed from ${show(o.value)} to ${show(n.value)}: parameters travel elsewhere`,
      });
    } else if (lost.length > 0) {
      c.report(o, n, {
        kind: "parameter-placement-narrowed",
        class: "breaking",
        message: `parameters may no longer travel in the ${lost.join(" or ")}: clients that send them there are refused`,
      });
    } else {
      c.report(o, n, {
        kind: "parameter-placement-widened",
        class: "compatible",
        breaksImplementations: true,
        message: `parameters may now also travel in the ${gained.join(" or ")}: implementations must read them there`,
      });
    }
  },
};
