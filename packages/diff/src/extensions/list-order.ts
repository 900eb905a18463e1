// x-list-order: the order of list answers. A reversed order or another sort field is breaking;
// a list that gains an order is compatible, one that loses it breaking.
import { child } from "../comparison.js";
import { changedFields, keyed, presence, promise } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-list-order";

export const listOrder: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "the order of its list answers")) return;
    const before = keyed(child(o, "lists"), (item) => String(item.list));
    const after = keyed(child(n, "lists"), (item) => String(item.list));
    for (const [list, a] of after) {
      const b = before.get(list);
      if (!b) {
        c.report(child(o, "lists"), a, {
          kind: "list-order-added",
          class: "compatible",
          breaksImplementations: true,
          message: `${KEY}: the list at "${list}" now has a stated order; implementations must keep it`,
        });
        continue;
      }
      const direction = [child(b, "direction"), child(a, "direction")] as const;
      if (direction[0].value !== direction[1].value) {
        c.report(direction[0], direction[1], {
          kind: "list-order-reversed",
          class: "breaking",
          message: `${KEY}: the list at "${list}" is now ${String(direction[1].value)} (was ${String(direction[0].value)}): clients that take the first item get the other end`,
        });
      }
      changedFields(c, b, a, KEY, ["field"]);
      promise(c, b, a, KEY, "strict", `no two neighbours of "${list}" sharing a key`);
    }
    for (const [list, b] of before) {
      if (after.has(list)) continue;
      c.report(b, child(n, "lists"), {
        kind: "list-order-removed",
        class: "breaking",
        message: `${KEY}: the list at "${list}" no longer has a stated order`,
      });
    }
  },
};
