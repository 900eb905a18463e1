// x-cursor-paging: where a page starts. Another cursor, id field or inclusiveness is breaking (a
// client's paging loop skips or repeats items); gaps newly allowed are breaking, gaps ruled out compatible.
import { changedFields, presence, promise } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-cursor-paging";

export const cursorPaging: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "cursor paging")) return;
    changedFields(c, o, n, KEY, ["parameter", "field", "inclusive"]);
    promise(c, o, n, KEY, "contiguous", "contiguous ids (no gaps between pages)");
  },
};
