// x-outcome-lookup: how a request whose answer was lost is looked up. Clients rely on it before
// they send an order again: another lookup, key or parameter is breaking (a client would look in
// the wrong place and send twice).
import { changedFields, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-outcome-lookup";

export const outcomeLookup: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "a lookup of a request whose answer was lost")) return;
    changedFields(c, o, n, KEY, ["operation", "key", "parameters"]);
  },
};
