// x-auth-class: the operation's authentication class. Stronger classes ask more of the caller.
import { type At, type Comparison, show } from "../comparison.js";
import type { ExtensionRule } from "./extension.js";

/** What each class asks of the caller, weakest first (docs/extensions.md). */
const STRENGTH: Record<string, number> = { none: 0, market_data: 1, user_data: 2, trade: 3 };

export const authClass: ExtensionRule = {
  key: "x-auth-class",
  compare(c: Comparison, o: At, n: At) {
    if (o.value === n.value) return;
    const before = STRENGTH[o.value as string];
    const after = STRENGTH[n.value as string];
    if (before === undefined || after === undefined) {
      c.report(o, n, {
        kind: "auth-class-changed",
        class: "breaking",
        breaksImplementations: true,
        message: `x-auth-class changed from ${show(o.value)} to ${show(n.value)}, which no rule can order: treated as breaking`,
      });
    } else if (after > before) {
      c.report(o, n, {
        kind: "auth-class-tightened",
        class: "breaking",
        message: `x-auth-class tightened from ${o.value} to ${n.value}: callers must now send more credentials`,
      });
    } else {
      c.report(o, n, {
        kind: "auth-class-loosened",
        class: "compatible",
        breaksImplementations: true,
        message: `x-auth-class loosened from ${o.value} to ${n.value}: implementations must accept callers with less`,
      });
    }
  },
};
