// x-server-time: where the server's clock is read. Another field is breaking: clients that sign
// with the server's time would read the wrong value.
import { changedFields, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-server-time";

export const serverTime: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "the server's clock in its answer")) return;
    changedFields(c, o, n, KEY, ["field"]);
  },
};
