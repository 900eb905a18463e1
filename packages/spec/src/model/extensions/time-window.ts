// x-time-window: the startTime/endTime pair that selects items by time (docs/extensions.md).

import { describeValue, SpecModelError } from "../spec-model-error.js";
import {
  type FactSource,
  readBoolean,
  readFactSource,
  readInteger,
  readObject,
  readOneOf,
  readParameterName,
  readPointer,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

/** Which items a page holds when a bound is absent. */
export type WindowAnchor = "oldest-from-start" | "newest-up-to-end" | "newest";
export const WINDOW_ANCHORS: readonly WindowAnchor[] = ["oldest-from-start", "newest-up-to-end", "newest"];

export interface TimeWindow {
  start: string;
  end: string;
  /** JSON Pointer of the time (epoch ms) inside each item. */
  field: string;
  /** Items at exactly startTime or endTime are inside. */
  inclusive: boolean;
  /** The largest allowed endTime − startTime in ms; absent: no limit. */
  maxSpanMs?: number;
  /** The error code of a wider window. */
  tooWideCode?: number;
  /** What the page holds with startTime alone, endTime alone, and neither. */
  startAlone: WindowAnchor;
  endAlone: WindowAnchor;
  neither: WindowAnchor;
  filledFrom: FactSource;
}

export function readTimeWindow(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): TimeWindow | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-time-window`;
  const object = readObject(
    value,
    at,
    "an object with start, end, field, inclusive, the anchors and filledFrom",
  );
  const window: TimeWindow = {
    start: readParameterName(object, "start", at, declared),
    end: readParameterName(object, "end", at, declared),
    field: readPointer(object, "field", at),
    inclusive: readBoolean(object, "inclusive", at),
    startAlone: readOneOf(object, "startAlone", at, WINDOW_ANCHORS),
    endAlone: readOneOf(object, "endAlone", at, WINDOW_ANCHORS),
    neither: readOneOf(object, "neither", at, WINDOW_ANCHORS),
    filledFrom: readFactSource(object, at),
  };
  if (object.maxSpanMs !== undefined) {
    window.maxSpanMs = readInteger(object, "maxSpanMs", at);
    if (window.maxSpanMs <= 0)
      throw new SpecModelError(`${at}/maxSpanMs`, "a positive number of ms", describeValue(object.maxSpanMs));
    window.tooWideCode = readInteger(object, "tooWideCode", at);
  }
  return window;
}

export const timeWindowExtension = {
  key: "x-time-window",
  name: "time-window",
  on: "operation",
  field: "Operation.behaviour.timeWindow",
  constrains: ["behaviour"],
  summary: "startTime/endTime: inclusive bounds, largest span, what each alone selects",
  read: readTimeWindow,
} as const satisfies ExtensionDescriptor;
