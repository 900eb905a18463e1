// x-result-filter: parameters that restrict the answer. A filter added is compatible, one removed
// (or one whose list or field moves) breaking; letting an unknown value through is breaking.
import { child } from "../comparison.js";
import { changedFields, keyed, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-result-filter";

export const resultFilter: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "answers restricted to what symbol/symbols name")) return;
    changedFields(c, o, n, KEY, ["unknown"]);
    const before = keyed(child(o, "filters"), (f) => String(f.parameter));
    const after = keyed(child(n, "filters"), (f) => String(f.parameter));
    for (const [parameter, a] of after) {
      const b = before.get(parameter);
      if (b) changedFields(c, b, a, KEY, ["takes", "list", "field"]);
      else
        c.report(child(o, "filters"), a, {
          kind: "result-filter-added",
          class: "compatible",
          breaksImplementations: true,
          message: `${KEY}: ${parameter} now restricts the answer; implementations must apply it`,
        });
    }
    for (const [parameter, b] of before) {
      if (after.has(parameter)) continue;
      c.report(b, child(n, "filters"), {
        kind: "result-filter-removed",
        class: "breaking",
        message: `${KEY}: ${parameter} no longer promises to restrict the answer`,
      });
    }
  },
};
