// x-refusals: the status and code of each refusal rule. Clients branch on codes: a rule's code or
// status changed, or a rule no longer given a code, is breaking; a rule newly given one is
// compatible (implementations must answer it).
import { child, isObject } from "../comparison.js";
import { changedFields, provenance } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-refusals";

export const refusals: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (o.value !== undefined && n.value !== undefined) provenance(c, o, n, KEY);
    const before = child(o, "rules");
    const after = child(n, "rules");
    const names = new Set([
      ...(isObject(before.value) ? Object.keys(before.value) : []),
      ...(isObject(after.value) ? Object.keys(after.value) : []),
    ]);
    for (const name of names) {
      const [b, a] = [child(before, name), child(after, name)];
      if (b.value === undefined && a.value !== undefined)
        c.report(b, a, {
          kind: "refusal-code-added",
          class: "compatible",
          breaksImplementations: true,
          message: `${KEY}: the refusal ${name} now has a stated status and code`,
        });
      else if (b.value !== undefined && a.value === undefined)
        c.report(b, a, {
          kind: "refusal-code-removed",
          class: "breaking",
          message: `${KEY}: the code of the refusal ${name} is no longer stated`,
        });
      else if (b.value !== undefined)
        changedFields(c, b, a, KEY, ["status", "code", "byParameter", "operations"]);
    }
  },
};
