// x-parameter-conditions: when the parameter `when` is present, the parameters under `require` must
// have the given values. A new requirement refuses requests; a dropped one must be accepted.
import { type At, isObject, same, show } from "../comparison.js";
import type { ExtensionRule } from "./extension.js";

type Condition = { when: string; require: Record<string, unknown> };

function conditionsOf(at: At): Map<string, { index: number; condition: Condition }> {
  const found = new Map<string, { index: number; condition: Condition }>();
  if (!Array.isArray(at.value)) return found;
  at.value.forEach((entry, index) => {
    if (isObject(entry) && typeof entry.when === "string") {
      found.set(entry.when, {
        index,
        condition: { when: entry.when, require: isObject(entry.require) ? entry.require : {} },
      });
    }
  });
  return found;
}

export const parameterConditions: ExtensionRule = {
  key: "x-parameter-conditions",
  compare(c, o, n) {
    const before = conditionsOf(o);
    const after = conditionsOf(n);
    for (const when of new Set([...before.keys(), ...after.keys()])) {
      const was = before.get(when);
      const is = after.get(when);
      const oAt = { value: was?.condition, pointer: `${o.pointer}/${was?.index ?? ""}` };
      const nAt = { value: is?.condition, pointer: `${n.pointer}/${is?.index ?? ""}` };
      const oldRequire = was?.condition.require ?? {};
      const newRequire = is?.condition.require ?? {};
      for (const name of new Set([...Object.keys(oldRequire), ...Object.keys(newRequire)])) {
        const from = oldRequire[name];
        const to = newRequire[name];
        if (same(from, to)) continue;
        if (from === undefined) {
          c.report(oAt, nAt, {
            kind: "parameter-condition-added",
            class: "breaking",
            message: `with "${when}", "${name}" must now be ${show(to)} (x-parameter-conditions): other requests are refused`,
          });
        } else if (to === undefined) {
          c.report(oAt, nAt, {
            kind: "parameter-condition-removed",
            class: "compatible",
            breaksImplementations: true,
            message: `with "${when}", "${name}" no longer has to be ${show(from)}: implementations must accept other values`,
          });
        } else {
          c.report(oAt, nAt, {
            kind: "parameter-condition-changed",
            class: "breaking",
            breaksImplementations: true,
            message: `with "${when}", "${name}" must now be ${show(to)} instead of ${show(from)}`,
          });
        }
      }
    }
  },
};
