/**
 * Epoch time parameters sent in milliseconds or microseconds (`x-epoch-time` in the spec, which
 * states the bound that tells them apart; read through the model, never written here). The engine
 * keeps whole milliseconds: window bounds are converted here, `timestamp` is judged in auth.ts.
 */
import { type EpochTime, epochUnitOf } from "@marketapi/spec/model";

/**
 * A window bound in epoch milliseconds, whichever unit it was sent in (`x-epoch-time`; milliseconds
 * only without it). The spec selects an item at millisecond T when the instant T × 1000 µs lies
 * within the bounds, inclusive; the engine's times are whole milliseconds, so a bound in
 * microseconds rounds inwards: a start up, an end down.
 */
export function epochMillis(rule: EpochTime | undefined, value: number, bound: "start" | "end"): number {
  if (rule === undefined || epochUnitOf(rule, value) === "millisecond") return value;
  return bound === "start" ? Math.ceil(value / 1000) : Math.floor(value / 1000);
}
