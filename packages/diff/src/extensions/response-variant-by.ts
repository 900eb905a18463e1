// x-response-variant-by: the request parameter that chooses the response's shape. Clients type
// their results by it, so a changed parameter or a variant that is gone or points at another
// shape is breaking; a new variant is compatible.
import { type At, type Comparison, child, isObject, same, show } from "../comparison.js";
import { compareStructurally } from "../structural.js";
import type { ExtensionRule } from "./extension.js";

/** The variants as value → schema reference; by presence, "present" and "absent". */
function variantsOf(at: At): Map<string, At> {
  const found = new Map<string, At>();
  if (!isObject(at.value)) return found;
  for (const [key, label] of [
    ["whenPresent", "present"],
    ["whenAbsent", "absent"],
  ] as const) {
    if (at.value[key] !== undefined) found.set(`(${label})`, child(at, key));
  }
  const variants = child(at, "variants");
  if (isObject(variants.value))
    for (const value of Object.keys(variants.value)) found.set(value, child(variants, value));
  return found;
}

/** Two variant references name the same shape when they resolve to equal schemas. */
function sameShape(c: Comparison, o: At, n: At): boolean {
  if (same(o.value, n.value)) return true;
  const target = (at: At, side: "old" | "new") =>
    c.deref({ value: { $ref: at.value }, pointer: at.pointer }, side).value;
  return (
    typeof o.value === "string" && typeof n.value === "string" && same(target(o, "old"), target(n, "new"))
  );
}

export const responseVariantBy: ExtensionRule = {
  key: "x-response-variant-by",
  compare(c, o, n) {
    if (same(o.value, n.value)) return;
    if (o.value === undefined || n.value === undefined) {
      c.report(o, n, {
        kind: "response-variant-by-changed",
        class: "breaking",
        breaksImplementations: true,
        message: `x-response-variant-by ${o.value === undefined ? "added" : "removed"}: the response's shape no longer follows the request as it did`,
      });
      return;
    }
    const parameter = (at: At) => (at.value as Record<string, unknown>).parameter;
    if (!same(parameter(o), parameter(n))) {
      c.report(child(o, "parameter"), child(n, "parameter"), {
        kind: "response-variant-parameter-changed",
        class: "breaking",
        breaksImplementations: true,
        message: `the response's shape is now chosen by ${show(parameter(n))} instead of ${show(parameter(o))}`,
      });
    }
    const before = variantsOf(o);
    const after = variantsOf(n);
    for (const value of new Set([...before.keys(), ...after.keys()])) {
      const was = before.get(value) ?? { value: undefined, pointer: `${o.pointer}/variants` };
      const is = after.get(value) ?? { value: undefined, pointer: `${n.pointer}/variants` };
      if (was.value === undefined) {
        c.report(was, is, {
          kind: "response-variant-added",
          class: "compatible",
          breaksImplementations: true,
          message: `response variant ${value} added (${show(is.value)})`,
        });
      } else if (is.value === undefined) {
        c.report(was, is, {
          kind: "response-variant-removed",
          class: "breaking",
          breaksImplementations: true,
          message: `response variant ${value} removed: clients that asked for it get another shape`,
        });
      } else if (!sameShape(c, was, is)) {
        c.report(was, is, {
          kind: "response-variant-changed",
          class: "breaking",
          breaksImplementations: true,
          message: `response variant ${value} now names ${show(is.value)} instead of ${show(was.value)}, another shape`,
        });
      } else if (!same(was.value, is.value)) {
        c.report(was, is, {
          kind: "response-variant-renamed",
          class: "informational",
          message: `response variant ${value} now names ${show(is.value)}, the same shape as ${show(was.value)}`,
        });
      }
    }
    for (const key of new Set([...Object.keys(o.value as object), ...Object.keys(n.value as object)])) {
      if (!["parameter", "variants", "whenPresent", "whenAbsent"].includes(key)) {
        compareStructurally(
          c,
          child(o, key),
          child(n, key),
          "breaking",
          `no rule covers "${key}" in x-response-variant-by`,
        );
      }
    }
  },
};
