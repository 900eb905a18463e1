/**
 * Microsecond times in answers, as the live API has them since 2024-12: the `X-MBX-TIME-UNIT`
 * request header (MICROSECOND or MILLISECOND, either case) selects the unit of the time fields of
 * the JSON answer. The engine keeps milliseconds; this module converts the answer. Time
 * parameters sent in microseconds are epoch-time.ts's.
 */
import type { ServerOperation } from "./api.js";

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
 * The unit the request asks for, from its validated parameters: the operation's declared header
 * parameter of this name (the spec's enum lists the values; validation refused any other with
 * -1194, so the unit is decided once, there). Milliseconds when not sent or not declared.
 */
export function timeUnitOf(checked: Readonly<Record<string, unknown>>, operation: ServerOperation): TimeUnit {
  const name = timeUnitParameterOf(operation);
  const value = name === undefined ? undefined : checked[name];
  return typeof value === "string" && value.toUpperCase() === "MICROSECOND" ? "MICROSECOND" : "MILLISECOND";
}

const unitParameters = new WeakMap<ServerOperation, string | undefined>();

/** The operation's header parameter that selects the unit (`X-MBX-TIME-UNIT`), by its spec name. */
function timeUnitParameterOf(operation: ServerOperation): string | undefined {
  if (unitParameters.has(operation)) return unitParameters.get(operation);
  const name = operation.parameters.find(
    (parameter) => parameter.in === "header" && parameter.name.toLowerCase() === TIME_UNIT_HEADER,
  )?.name;
  unitParameters.set(operation, name);
  return name;
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
