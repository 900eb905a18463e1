// The rate limits an exchange announces (exchangeInfo's `rateLimits`) and the windows they count in.

/** One limit as exchangeInfo announces it: `{ rateLimitType, interval, intervalNum, limit }`. */
export interface RateLimit {
  /** `REQUEST_WEIGHT` (per IP), `ORDERS` (per account) or `RAW_REQUESTS` (per IP); others are ignored. */
  readonly rateLimitType: string;
  /** `SECOND`, `MINUTE`, `HOUR` or `DAY`. */
  readonly interval: string;
  readonly intervalNum: number;
  readonly limit: number;
}

/** What a request spends of each kind of limit. */
export type LimitKind = "REQUEST_WEIGHT" | "ORDERS" | "RAW_REQUESTS";

export const LIMIT_KINDS: readonly LimitKind[] = ["REQUEST_WEIGHT", "ORDERS", "RAW_REQUESTS"];

const INTERVAL_MS: Readonly<Record<string, number>> = {
  SECOND: 1_000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
};

/** The letter an interval has in a counter header's name (`X-MBX-USED-WEIGHT-1M`). */
const INTERVAL_LETTER: Readonly<Record<string, string>> = { SECOND: "S", MINUTE: "M", HOUR: "H", DAY: "D" };

/** A checked limit: its kind, its window's length, and the header suffix of its counter (`1M`). */
export interface LimitRule {
  readonly kind: LimitKind;
  readonly windowMs: number;
  readonly limit: number;
  readonly suffix: string;
  readonly announced: RateLimit;
}

/**
 * The limits the pacer can keep, checked: a faulty entry throws a TypeError naming it; an entry of
 * a kind the pacer does not know is left out (an exchange may announce more kinds than it counts
 * in headers).
 */
export function readLimits(limits: readonly RateLimit[]): LimitRule[] {
  if (!Array.isArray(limits)) throw new TypeError(`rate limits: expected a list, got ${typeof limits}`);
  const rules: LimitRule[] = [];
  limits.forEach((entry, i) => {
    const where = `rate limits[${i}]`;
    if (typeof entry !== "object" || entry === null) throw new TypeError(`${where}: expected an object`);
    const { rateLimitType, interval, intervalNum, limit } = entry;
    const unit = INTERVAL_MS[interval];
    if (unit === undefined)
      throw new TypeError(
        `${where}: interval must be SECOND, MINUTE, HOUR or DAY, got ${JSON.stringify(interval)}`,
      );
    if (!Number.isInteger(intervalNum) || intervalNum < 1)
      throw new TypeError(`${where}: intervalNum must be a whole number of at least 1, got ${intervalNum}`);
    if (!Number.isInteger(limit) || limit < 1)
      throw new TypeError(`${where}: limit must be a whole number of at least 1, got ${limit}`);
    if (!(LIMIT_KINDS as readonly string[]).includes(rateLimitType)) return;
    rules.push({
      kind: rateLimitType as LimitKind,
      windowMs: unit * intervalNum,
      limit,
      suffix: `${intervalNum}${INTERVAL_LETTER[interval]}`.toLowerCase(),
      announced: { rateLimitType, interval, intervalNum, limit },
    });
  });
  return rules;
}
