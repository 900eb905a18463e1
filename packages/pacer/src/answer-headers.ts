// What an answer's headers say about the limits: the counters (`X-MBX-USED-WEIGHT-1M`,
// `X-MBX-ORDER-COUNT-10S`, …) and `Retry-After`.

import type { LimitKind } from "./rate-limits.js";

/** Headers as fetch gives them (`Headers`) or as node:http does (a plain object, names in any case). */
export type HeaderSource =
  | { get(name: string): string | null; forEach(callback: (value: string, name: string) => void): void }
  | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/**
 * The header name prefixes of the counters, by the kind of limit they count; the name goes on with
 * the window (`1M`, `10S`, `1D`). The live API's: `x-mbx-used-weight-` and `x-mbx-order-count-`.
 */
export type CounterHeaders = Readonly<Partial<Record<LimitKind, string>>>;

export const DEFAULT_COUNTER_HEADERS: CounterHeaders = {
  REQUEST_WEIGHT: "x-mbx-used-weight-",
  ORDERS: "x-mbx-order-count-",
};

/** A counter an answer reports: its kind, its window's suffix (`1m`) and its value. */
export interface ReportedCounter {
  readonly kind: LimitKind;
  readonly suffix: string;
  readonly value: number;
}

function eachHeader(headers: HeaderSource, visit: (name: string, value: string) => void): void {
  if (typeof (headers as { forEach?: unknown }).forEach === "function" && "get" in headers) {
    (headers as { forEach(callback: (value: string, name: string) => void): void }).forEach((value, name) => {
      visit(name.toLowerCase(), value);
    });
    return;
  }
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (value === undefined) continue;
    visit(name.toLowerCase(), Array.isArray(value) ? String(value[value.length - 1]) : String(value));
  }
}

/** The counters the answer's headers report, read with the given prefixes. */
export function reportedCounters(
  headers: HeaderSource,
  prefixes: CounterHeaders = DEFAULT_COUNTER_HEADERS,
): ReportedCounter[] {
  const found: ReportedCounter[] = [];
  const kinds = Object.entries(prefixes) as [LimitKind, string][];
  eachHeader(headers, (name, text) => {
    for (const [kind, prefix] of kinds) {
      if (!name.startsWith(prefix.toLowerCase())) continue;
      const suffix = name.slice(prefix.length);
      const value = Number(text.trim());
      if (/^[0-9]+[smhd]$/.test(suffix) && Number.isInteger(value) && value >= 0)
        found.push({ kind, suffix, value });
    }
  });
  return found;
}

/**
 * `Retry-After` in milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110); undefined
 * when absent or unreadable.
 */
export function retryAfterMs(headers: HeaderSource, now: number): number | undefined {
  let text: string | undefined;
  eachHeader(headers, (name, value) => {
    if (name === "retry-after") text = value.trim();
  });
  if (text === undefined || text === "") return undefined;
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
