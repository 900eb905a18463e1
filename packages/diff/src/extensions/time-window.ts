// x-time-window: startTime/endTime. A longer (or no) maximum span is compatible: every window that
// was accepted still is. A shorter one is breaking, as is any change of what the bounds mean.
import { type At, child, show } from "../comparison.js";
import { changedFields, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-time-window";
const span = (at: At) => (typeof at.value === "number" ? at.value : Number.POSITIVE_INFINITY);

export const timeWindow: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "what startTime and endTime select")) return;
    changedFields(c, o, n, KEY, ["start", "end", "field", "inclusive", "startAlone", "endAlone", "neither"]);
    const before = child(o, "maxSpanMs");
    const after = child(n, "maxSpanMs");
    if (span(before) < span(after)) {
      c.report(before, after, {
        kind: "time-window-longer",
        class: "compatible",
        breaksImplementations: true,
        message: `${KEY} maxSpanMs from ${show(before.value)} to ${show(after.value)}: wider windows are accepted; every window accepted before still is`,
      });
    } else if (span(before) > span(after)) {
      c.report(before, after, {
        kind: "time-window-shorter",
        class: "breaking",
        message: `${KEY} maxSpanMs from ${show(before.value)} to ${show(after.value)}: windows that were accepted are refused`,
      });
    }
    if (before.value !== undefined && after.value !== undefined) changedFields(c, o, n, KEY, ["tooWideCode"]);
  },
};
