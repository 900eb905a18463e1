// x-mutually-exclusive: groups of parameters of which at most one may be sent. A new or larger
// group refuses requests that were valid; a removed or smaller one must be accepted by servers.
import type { At } from "../comparison.js";
import type { ExtensionRule } from "./extension.js";

const groupsOf = (at: At): string[][] =>
  Array.isArray(at.value) ? (at.value as unknown[]).filter(Array.isArray).map((g) => g.map(String)) : [];
/** A group's exclusions hold already when a group on the other side contains all of it. */
const coveredBy = (group: string[], others: string[][]) =>
  others.some((h) => group.every((p) => h.includes(p)));
const quoted = (list: string[]) => list.map((n) => `"${n}"`).join(", ");

export const mutuallyExclusive: ExtensionRule = {
  key: "x-mutually-exclusive",
  compare(c, o, n) {
    const before = groupsOf(o);
    const after = groupsOf(n);
    for (const group of after.filter((g) => !coveredBy(g, before))) {
      c.report(o, n, {
        kind: "mutually-exclusive-added",
        class: "breaking",
        message: `${quoted(group)} may no longer be sent together (x-mutually-exclusive): requests with both are refused`,
      });
    }
    for (const group of before.filter((g) => !coveredBy(g, after))) {
      c.report(o, n, {
        kind: "mutually-exclusive-removed",
        class: "compatible",
        breaksImplementations: true,
        message: `${quoted(group)} may now be sent together: implementations must accept the combination`,
      });
    }
  },
};
