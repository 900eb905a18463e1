// x-epoch-time: the units time parameters may be sent in. Servers must accept what it lists and
// clients may send it: a parameter or unit added is compatible (implementations must accept it),
// one removed is breaking (clients sending it are refused); a moved bound or judgement is breaking
// (a value is read in the other unit, or selects other items). The bound's reason is prose.
import { type At, type Comparison, child, show } from "../comparison.js";
import { changedFields, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-epoch-time";

export const epochTime: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "time parameters in epoch microseconds as well as milliseconds")) return;
    for (const list of ["parameters", "units"]) listChanges(c, child(o, list), child(n, list), list);
    changedFields(c, o, n, KEY, ["microsecondsFrom", "timestamp", "windowBounds"]);
  },
};

function listChanges(c: Comparison, o: At, n: At, field: string): void {
  const before = Array.isArray(o.value) ? o.value.map(String) : [];
  const after = Array.isArray(n.value) ? n.value.map(String) : [];
  for (const item of after.filter((x) => !before.includes(x)))
    c.report(o, n, {
      kind: "epoch-time-widened",
      class: "compatible",
      breaksImplementations: true,
      message: `${KEY} ${field} now lists ${show(item)}: implementations must accept it`,
    });
  for (const item of before.filter((x) => !after.includes(x)))
    c.report(o, n, {
      kind: "epoch-time-narrowed",
      class: "breaking",
      message: `${KEY} ${field} no longer lists ${show(item)}: clients that send it are refused`,
    });
}
