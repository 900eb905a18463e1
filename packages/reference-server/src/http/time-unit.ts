/**
 * Microsecond times, as the live API has them since 2024-12: the `X-MBX-TIME-UNIT` request header
 * (MICROSECOND or MILLISECOND, either case) selects the unit of the time fields of the JSON answer,
 * and timestamp parameters (`timestamp`, `startTime`, `endTime`) may be sent in microseconds.
 * The engine keeps milliseconds; this module converts at the edges.
 */
import { invalidTimeUnit } from "../errors.js";

export type TimeUnit = "MILLISECOND" | "MICROSECOND";

export const TIME_UNIT_HEADER = "x-mbx-time-unit";

/** The answer's time fields (every JSON key holding an epoch time in the 17 operations). */
const TIME_FIELDS = new Set([
  "serverTime",
  "time",
  "T",
  "transactTime",
  "transactionTime",
  "updateTime",
  "workingTime",
  "openTime",
  "closeTime",
]);

/**
 * An epoch value at or above this is read as microseconds: 10^14 ms is the year 5138, 10^14 µs is
 * 1973, so no time a client means in milliseconds is mistaken for microseconds.
 */
export const MICROSECONDS_FROM = 1e14;

/** The unit the request asks for; -1194 with the live API's text for any other value. */
export function timeUnitOf(header: string | string[] | undefined): TimeUnit {
  if (header === undefined || header === "") return "MILLISECOND";
  if (header === "MICROSECOND" || header === "microsecond") return "MICROSECOND";
  if (header === "MILLISECOND" || header === "millisecond") return "MILLISECOND";
  throw invalidTimeUnit();
}

/** The body with every time field in microseconds (negative sentinels such as -1 stay). */
export function inMicroseconds(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(inMicroseconds);
  if (typeof body !== "object" || body === null) return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    out[key] =
      TIME_FIELDS.has(key) && typeof value === "number" && value >= 0 ? value * 1000 : inMicroseconds(value);
  }
  return out;
}

/**
 * An epoch time parameter in milliseconds, whichever unit it was sent in. Microseconds round
 * inwards so the bound stays inclusive: a start rounds up, an end down (the engine's times are
 * whole milliseconds).
 */
export function epochMillis(value: number, bound: "start" | "end"): number {
  if (value < MICROSECONDS_FROM) return value;
  return bound === "start" ? Math.ceil(value / 1000) : Math.floor(value / 1000);
}
