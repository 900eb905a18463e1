// x-order-type-rules: per order type, the parameters it requires, forbids, or needs one of. A rule
// that requires more or allows less refuses orders that were valid: breaking. The reverse is
// compatible, and implementations must accept the orders they used to refuse.
import { type At, type Comparison, child, isObject, same } from "../comparison.js";
import { compareStructurally } from "../structural.js";
import type { ExtensionRule } from "./extension.js";

type Groups = string[][];
const names = (at: At): string[] => (Array.isArray(at.value) ? (at.value as string[]) : []);
const groups = (at: At): Groups =>
  Array.isArray(at.value) ? (at.value as Groups).filter(Array.isArray) : [];
const quoted = (list: string[]) => list.map((n) => `"${n}"`).join(", ");

function requiresMore(c: Comparison, o: At, n: At, message: string): void {
  c.report(o, n, {
    kind: "order-type-rules-stricter",
    class: "breaking",
    message: `${message}: orders valid before are refused`,
  });
}

function requiresLess(c: Comparison, o: At, n: At, message: string): void {
  c.report(o, n, {
    kind: "order-type-rules-looser",
    class: "compatible",
    breaksImplementations: true,
    message: `${message}: implementations must accept orders they refused`,
  });
}

function compareRule(c: Comparison, type: string, o: At, n: At): void {
  for (const key of ["required", "forbidden"]) {
    const before = names(child(o, key));
    const after = names(child(n, key));
    const added = after.filter((p) => !before.includes(p));
    const removed = before.filter((p) => !after.includes(p));
    const verb = key === "required" ? "requires" : "forbids";
    if (added.length > 0)
      requiresMore(c, child(o, key), child(n, key), `${type} orders now ${verb} ${quoted(added)}`);
    if (removed.length > 0)
      requiresLess(c, child(o, key), child(n, key), `${type} orders no longer ${verb} ${quoted(removed)}`);
  }
  const required = (at: At) => names(child(at, "required"));
  // "at least one of G" holds already when the other side requires one of G, or one of a subgroup.
  const impliedAtLeast = (group: string[], rule: At) =>
    group.some((p) => required(rule).includes(p)) ||
    [...groups(child(rule, "atLeastOneOf")), ...groups(child(rule, "exactlyOneOf"))].some((h) =>
      h.every((p) => group.includes(p)),
    );
  for (const group of groups(child(n, "atLeastOneOf"))) {
    if (!impliedAtLeast(group, o))
      requiresMore(
        c,
        child(o, "atLeastOneOf"),
        child(n, "atLeastOneOf"),
        `${type} orders now need at least one of ${quoted(group)}`,
      );
  }
  for (const group of groups(child(o, "atLeastOneOf"))) {
    if (!impliedAtLeast(group, n))
      requiresLess(
        c,
        child(o, "atLeastOneOf"),
        child(n, "atLeastOneOf"),
        `${type} orders no longer need one of ${quoted(group)}`,
      );
  }
  const has = (list: Groups, g: string[]) => list.some((h) => same([...h].sort(), [...g].sort()));
  const beforeExactly = groups(child(o, "exactlyOneOf"));
  const afterExactly = groups(child(n, "exactlyOneOf"));
  for (const group of afterExactly.filter((g) => !has(beforeExactly, g))) {
    requiresMore(
      c,
      child(o, "exactlyOneOf"),
      child(n, "exactlyOneOf"),
      `${type} orders now need exactly one of ${quoted(group)}`,
    );
  }
  for (const group of beforeExactly.filter((g) => !has(afterExactly, g))) {
    requiresLess(
      c,
      child(o, "exactlyOneOf"),
      child(n, "exactlyOneOf"),
      `${type} orders no longer need exactly one of ${quoted(group)}`,
    );
  }
  const known = new Set(["required", "forbidden", "atLeastOneOf", "exactlyOneOf"]);
  for (const key of new Set([
    ...Object.keys(isObject(o.value) ? o.value : {}),
    ...Object.keys(isObject(n.value) ? n.value : {}),
  ])) {
    if (!known.has(key)) {
      compareStructurally(
        c,
        child(o, key),
        child(n, key),
        "breaking",
        `no rule covers "${key}" in x-order-type-rules, so it counts as breaking`,
      );
    }
  }
}

export const orderTypeRules: ExtensionRule = {
  key: "x-order-type-rules",
  compare(c, o, n) {
    const types = new Set([
      ...Object.keys(isObject(o.value) ? o.value : {}),
      ...Object.keys(isObject(n.value) ? n.value : {}),
    ]);
    for (const type of types) {
      const before = child(o, type);
      const after = child(n, type);
      if (same(before.value, after.value)) continue;
      if (before.value === undefined) {
        requiresMore(c, before, after, `${type} orders now have rules (x-order-type-rules)`);
      } else if (after.value === undefined) {
        requiresLess(c, before, after, `${type} orders no longer have rules (x-order-type-rules)`);
      } else compareRule(c, type, before, after);
    }
  },
};
