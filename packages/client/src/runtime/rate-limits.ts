/** The rate-limit counters a response reports (binance-spot.md §4). */
export interface RateLimits {
  /** Request weight used per interval, from `X-MBX-USED-WEIGHT-<interval>`, e.g. `{ "1M": 31 }`. */
  usedWeight: Record<string, number>;
  /** Orders placed per interval, from `X-MBX-ORDER-COUNT-<interval>`, e.g. `{ "10S": 1, "1D": 1 }`. */
  orderCount: Record<string, number>;
  /** Seconds to wait before the next request, from `Retry-After` (on 429 and 418 answers). */
  retryAfter?: number;
}

const COUNTER = /^x-mbx-(used-weight|order-count)-([0-9]+[a-z])$/;

/** Reads the rate-limit headers of a response, or of any result that carries one (`{ response }`). */
export function rateLimitsOf(source: Response | { response: Response }): RateLimits {
  const headers = ("response" in source ? source.response : source).headers;
  const limits: RateLimits = { usedWeight: {}, orderCount: {} };
  headers.forEach((value, name) => {
    const match = COUNTER.exec(name.toLowerCase());
    const count = Number(value);
    if (match && value !== "" && Number.isFinite(count)) {
      const counters = match[1] === "used-weight" ? limits.usedWeight : limits.orderCount;
      counters[match[2]!.toUpperCase()] = count;
    }
  });
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null && retryAfter.trim() !== "" && Number.isFinite(Number(retryAfter))) {
    limits.retryAfter = Number(retryAfter);
  }
  return limits;
}
