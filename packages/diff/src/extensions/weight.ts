// x-weight: the request weight against the rate limit, and its tiers by parameter. A limit, not a
// contract: informational.
import { same, show } from "../comparison.js";
import type { ExtensionRule } from "./extension.js";

export const weight: ExtensionRule = {
  key: "x-weight",
  compare(c, o, n) {
    if (same(o.value, n.value)) return;
    c.report(o, n, {
      kind: "weight-changed",
      class: "informational",
      message: `x-weight changed from ${show(o.value)} to ${show(n.value)}: the request counts differently against the rate limit`,
    });
  },
};
