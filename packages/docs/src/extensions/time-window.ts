import type { TimeWindow, WindowAnchor } from "@marketapi/spec/model";
import { field, source } from "./behaviour-words.js";

const ANCHOR: Record<WindowAnchor, string> = {
  "oldest-from-start": "the oldest items from the start",
  "newest-up-to-end": "the newest items up to the end",
  newest: "the newest items",
};

export function timeWindowLine(w: TimeWindow): string {
  const span =
    w.maxSpanMs === undefined
      ? "no largest span"
      : `at most ${w.maxSpanMs / 3_600_000} h between them (wider: error ${w.tooWideCode})`;
  return `**Time window** (\`x-time-window\`): \`${w.start}\`..\`${w.end}\` on ${field(w.field)}, ${w.inclusive ? "both bounds inclusive" : "bounds exclusive"}, ${span}. \`${w.start}\` alone: ${ANCHOR[w.startAlone]}; \`${w.end}\` alone: ${ANCHOR[w.endAlone]}; neither: ${ANCHOR[w.neither]}.${source(w.filledFrom)}`;
}
