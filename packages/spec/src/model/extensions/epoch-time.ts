// x-epoch-time: the units epoch time parameters are sent in, and how a value's unit is told
// (docs/extensions.md).

import { describeValue, SpecModelError } from "../spec-model-error.js";
import {
  type FactSource,
  readFactSource,
  readInteger,
  readObject,
  readOneOf,
  readString,
  readStrings,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

/** The units a time parameter may be sent in. */
export type EpochUnit = "millisecond" | "microsecond";

/**
 * How a value in microseconds is judged against the signing window: as the instant it names,
 * while the window (`recvWindow`) and the largest lead stay milliseconds.
 */
export type TimestampJudgement = "same-instant";
/**
 * Which items a bound in microseconds selects: an item at millisecond T is inside when the instant
 * T × 1000 µs lies within the bounds (inclusive bounds stay inclusive).
 */
export type WindowBoundJudgement = "instant";

export interface EpochTime {
  /** The parameters this holds for, wherever an operation (or the signing envelope) has them. */
  parameters: string[];
  /** The units they may be sent in. */
  units: EpochUnit[];
  /** An integer at or above this is microseconds; below it, milliseconds. */
  microsecondsFrom: number;
  /** Who states microsecondsFrom (the live API states no bound), and why it is safe. */
  boundStatedBy: "this-document";
  boundWhy: string;
  timestamp: TimestampJudgement;
  windowBounds: WindowBoundJudgement;
  filledFrom: FactSource;
}

const UNITS: readonly EpochUnit[] = ["millisecond", "microsecond"];

export function readEpochTime(value: unknown): EpochTime | undefined {
  if (value === undefined) return undefined;
  const at = "/x-epoch-time";
  const object = readObject(
    value,
    at,
    "an object with parameters, units, microsecondsFrom, boundStatedBy, boundWhy, timestamp, windowBounds and filledFrom",
  );
  const units = readStrings(object, "units", at);
  for (const [i, unit] of units.entries())
    if (!(UNITS as readonly string[]).includes(unit))
      throw new SpecModelError(`${at}/units/${i}`, `one of ${UNITS.join(", ")}`, describeValue(unit));
  const microsecondsFrom = readInteger(object, "microsecondsFrom", at);
  if (microsecondsFrom <= 0)
    throw new SpecModelError(`${at}/microsecondsFrom`, "a positive integer", describeValue(microsecondsFrom));
  return {
    parameters: readStrings(object, "parameters", at),
    units: units as EpochUnit[],
    microsecondsFrom,
    boundStatedBy: readOneOf(object, "boundStatedBy", at, ["this-document"] as const),
    boundWhy: readString(object, "boundWhy", at),
    timestamp: readOneOf(object, "timestamp", at, ["same-instant"] as const),
    windowBounds: readOneOf(object, "windowBounds", at, ["instant"] as const),
    filledFrom: readFactSource(object, at),
  };
}

/** The unit an integer value of a time parameter is in. */
export function epochUnitOf(rule: Pick<EpochTime, "microsecondsFrom" | "units">, value: number): EpochUnit {
  return rule.units.includes("microsecond") && value >= rule.microsecondsFrom ? "microsecond" : "millisecond";
}

/** The instant an integer value of a time parameter names, in epoch microseconds. */
export function epochMicroseconds(
  rule: Pick<EpochTime, "microsecondsFrom" | "units">,
  value: number,
): number {
  return epochUnitOf(rule, value) === "microsecond" ? value : value * 1000;
}

/**
 * Whether an item at epoch millisecond `itemMs` lies inside bounds sent as `start`/`end` (either
 * unit, either absent), inclusive: the instant itemMs × 1000 µs is compared with each bound's.
 */
export function insideEpochWindow(
  rule: Pick<EpochTime, "microsecondsFrom" | "units">,
  itemMs: number,
  start: number | undefined,
  end: number | undefined,
): boolean {
  const instant = itemMs * 1000;
  if (start !== undefined && instant < epochMicroseconds(rule, start)) return false;
  return end === undefined || instant <= epochMicroseconds(rule, end);
}

export const epochTimeExtension = {
  key: "x-epoch-time",
  name: "epoch-time",
  on: "document",
  field: "SpecModel.epochTime",
  constrains: ["behaviour"],
  summary:
    "epoch time parameters (timestamp, startTime, endTime) in milliseconds or microseconds: the bound that tells them apart, and how each is judged",
  read: readEpochTime,
} as const satisfies ExtensionDescriptor;
