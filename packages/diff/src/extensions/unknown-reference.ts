// x-unknown-reference: the error of an unknown symbol or order. Another code or status is
// breaking (clients branch on it); a kind of reference newly covered is compatible.
import { child } from "../comparison.js";
import { changedFields, provenance } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-unknown-reference";

export const unknownReference: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (o.value !== undefined && n.value !== undefined) provenance(c, o, n, KEY);
    for (const kind of ["symbol", "order"]) {
      const [b, a] = [child(o, kind), child(n, kind)];
      if (b.value === undefined && a.value !== undefined)
        c.report(b, a, {
          kind: "unknown-reference-added",
          class: "compatible",
          breaksImplementations: true,
          message: `${KEY}: an unknown ${kind} is now answered with a stated error`,
        });
      else if (b.value !== undefined && a.value === undefined)
        c.report(b, a, {
          kind: "unknown-reference-removed",
          class: "breaking",
          message: `${KEY}: the error of an unknown ${kind} is no longer stated`,
        });
      else if (b.value !== undefined) changedFields(c, b, a, KEY, ["status", "code", "parameters"]);
    }
  },
};
