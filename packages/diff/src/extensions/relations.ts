// x-relations: facts two or more operations report, stated once. A relation that appears is a new
// promise (compatible for clients; implementations must keep it); one that disappears, or whose
// meaning changes (other operations, fields, window, measures), is breaking: clients relied on it.
import { type At, child, same, show } from "../comparison.js";
import { keyed, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-relations";
const LISTS = ["sharedFacts", "tradeWindows", "aggregates", "orders"] as const;

export const relations: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "the relations between its operations")) return;
    for (const field of ["trades", "book"]) {
      const [before, after] = [child(o, field), child(n, field)];
      if (same(before.value, after.value)) continue;
      c.report(before, after, {
        kind: "relations-changed",
        class: "breaking",
        message: `${KEY} ${field} changed from ${show(before.value)} to ${show(after.value)}: every relation of it reads other answers`,
      });
    }
    for (const list of LISTS) {
      const byName = (at: At) => keyed(child(at, list), (item) => String(item.name));
      const [before, after] = [byName(o), byName(n)];
      for (const [name, at] of after) {
        const old = before.get(name);
        if (!old) {
          c.report(child(o, list), at, {
            kind: "relation-added",
            class: "compatible",
            breaksImplementations: true,
            message: `${KEY} ${list}: "${name}" added; implementations must keep it`,
          });
        } else if (!same(old.value, at.value)) {
          c.report(old, at, {
            kind: "relation-changed",
            class: "breaking",
            message: `${KEY} ${list}: "${name}" changed from ${show(old.value)} to ${show(at.value)}: clients read the answers differently`,
          });
        }
      }
      for (const [name, at] of before) {
        if (after.has(name)) continue;
        c.report(at, child(n, list), {
          kind: "relation-removed",
          class: "breaking",
          message: `${KEY} ${list}: "${name}" removed: clients can no longer rely on it`,
        });
      }
    }
  },
};
