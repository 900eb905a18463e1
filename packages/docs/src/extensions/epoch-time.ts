// x-epoch-time in the docs: one section on the units time parameters may be sent in.
import type { SpecModel } from "@marketapi/spec/model";
import { code, text } from "../markdown.js";
import { source } from "./behaviour-words.js";

export const EPOCH_TIME_SECTION_TITLE = "Time parameters in milliseconds or microseconds";

export function epochTimeMarkdown(model: Pick<SpecModel, "epochTime">): string | undefined {
  const rule = model.epochTime;
  if (rule === undefined) return undefined;
  const names = rule.parameters.map(code).join(", ");
  const bound = rule.microsecondsFrom.toLocaleString("en-US");
  return [
    `## ${EPOCH_TIME_SECTION_TITLE}`,
    `${names} are sent as epoch ${rule.units.map((u) => `${u}s`).join(" or epoch ")} (${code("x-epoch-time")}).${source(rule.filledFrom)} An integer of ${code(bound)} or more is microseconds; a smaller one is milliseconds. This bound is this document's: ${text(rule.boundWhy)}`,
    `A ${code("timestamp")} in microseconds is judged as the instant it names, by the signing rule unchanged (${code("recvWindow")} and the 1000 ms lead stay milliseconds). A ${code("startTime")}/${code("endTime")} in microseconds selects the items whose millisecond time names an instant within the bounds, inclusive: an item at millisecond T is inside when start ≤ T × 1000 ≤ end. Where an RFC 3339 text is also accepted, only the integer form has a unit.`,
  ].join("\n\n");
}
