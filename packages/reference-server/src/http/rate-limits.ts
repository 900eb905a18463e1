/**
 * Rate limits as the live API counts them: request weight per IP in fixed one-minute windows
 * (X-MBX-USED-WEIGHT-1M), raw requests per IP in fixed five-minute windows (when set), and placed
 * orders per account in fixed 10-second and one-day windows (X-MBX-ORDER-COUNT-10S / -1D). Over a
 * limit the answer is 429 with Retry-After. An IP that goes on sending after its 429s is banned,
 * as the live API bans it: 418 with Retry-After until the ban ends, each further ban twice as long
 * (up to 3 days). Windows are cut from the injected clock (`now`), so a sandbox clock that runs
 * fast or jumps moves them too.
 */

import { requestWeight as weightByRule } from "@marketapi/pacer";
import { type ApiError, ipBanned, tooManyOrders, tooManyRequests, tooMuchWeight } from "../errors.js";
import type { ServerOperation } from "./api.js";
import { extraWeight } from "./live-extras.js";
import type { RequestParams } from "./params.js";

export interface RateLimitConfig {
  /** REQUEST_WEIGHT per IP and minute. */
  requestWeightPerMinute: number;
  /** ORDERS per account and 10 seconds. */
  ordersPer10s: number;
  /** ORDERS per account and day (UTC). */
  ordersPerDay: number;
  /** 429 answers an IP may get in one weight window; the next over-limit request bans it (418). */
  banAfter429s: number;
  /** Length of an IP's first ban in seconds; each further ban doubles it, up to 3 days. */
  banSeconds: number;
  /** RAW_REQUESTS per IP and 5 minutes (every request counts 1); undefined: not limited. */
  rawRequestsPer5m?: number | undefined;
}

/**
 * Defaults far above the live API's (LIVE_RATE_LIMITS), so that a test suite's ordinary traffic is
 * not throttled; `--live-limits` sets the live values to exercise a client's limiter. A load test
 * reaches the defaults within seconds (one address may spend about 16,700 weight per second), so
 * the throughput benches raise them in their config (README, "Rate limits").
 */
export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  requestWeightPerMinute: 1_000_000,
  ordersPer10s: 100_000,
  ordersPerDay: 10_000_000,
  banAfter429s: 10,
  banSeconds: 120,
};

/**
 * The live API's limits as its documentation states them: REQUEST_WEIGHT 6000 per minute, ORDERS
 * 50 per 10 seconds and 160,000 per day, RAW_REQUESTS 61,000 per 5 minutes; bans from 2 minutes,
 * growing for repeat offenders (the live API states no count of 429s before a ban: 10 here).
 */
export const LIVE_RATE_LIMITS: RateLimitConfig = {
  requestWeightPerMinute: 6000,
  ordersPer10s: 50,
  ordersPerDay: 160_000,
  banAfter429s: 10,
  banSeconds: 120,
  rawRequestsPer5m: 61_000,
};

/** The keys a configuration may set (`rateLimits` in --config). */
export const RATE_LIMIT_KEYS: readonly (keyof RateLimitConfig)[] = Object.keys(
  LIVE_RATE_LIMITS,
) as (keyof RateLimitConfig)[];

const MAX_BAN_MS = 3 * 86_400_000;

const MINUTE_MS = 60_000;
const FIVE_MINUTES_MS = 5 * MINUTE_MS;
const TEN_SECONDS_MS = 10_000;
const DAY_MS = 86_400_000;

/** Counts per key in fixed, epoch-aligned windows; a new window forgets the old counts. */
export class WindowCounter {
  private window = -1;
  /** One mutable cell per key: a count that changes is written in place, not set in the Map again. */
  private counts = new Map<string, { count: number }>();

  constructor(readonly windowMs: number) {}

  used(key: string, now: number): number {
    return this.cellOf(key, now)?.count ?? 0;
  }

  add(key: string, amount: number, now: number): number {
    return this.set(key, this.used(key, now) + amount);
  }

  /** Sets the key's count in the current window (roll it with `used` first); returns it. */
  set(key: string, total: number): number {
    const cell = this.counts.get(key);
    if (cell === undefined) this.counts.set(key, { count: total });
    else cell.count = total;
    return total;
  }

  /**
   * The key's cell in the current window (rolled to `now`), if it has counted anything: read it,
   * and write a new total into it, with one lookup of the key.
   */
  cellOf(key: string, now: number): { count: number } | undefined {
    this.roll(now);
    return this.counts.get(key);
  }

  /** Whole seconds until the current window ends (at least 1). */
  secondsLeft(now: number): number {
    return Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
  }

  private roll(now: number): void {
    const window = Math.floor(now / this.windowMs);
    if (window === this.window) return;
    this.window = window;
    this.counts = new Map();
  }
}

export interface OrderCounts {
  tenSeconds: number;
  day: number;
}

/** An IP's ban: until when, and how many bans it has had (each doubles the next). */
interface Ban {
  until: number;
  count: number;
}

export class RateLimiter {
  private weight = new WindowCounter(MINUTE_MS);
  /** Requests per IP in the current five minutes (counted only when `rawRequestsPer5m` is set). */
  private raw = new WindowCounter(FIVE_MINUTES_MS);
  /** 429 answers per IP in the current weight window. */
  private refusals = new WindowCounter(MINUTE_MS);
  private orders10s = new WindowCounter(TEN_SECONDS_MS);
  private ordersDay = new WindowCounter(DAY_MS);
  private readonly bans = new Map<string, Ban>();

  constructor(readonly config: RateLimitConfig) {}

  /** Forgets every count and ban (the sandbox's clock went back, or its state was reset). */
  reset(): void {
    this.weight = new WindowCounter(MINUTE_MS);
    this.raw = new WindowCounter(FIVE_MINUTES_MS);
    this.refusals = new WindowCounter(MINUTE_MS);
    this.orders10s = new WindowCounter(TEN_SECONDS_MS);
    this.ordersDay = new WindowCounter(DAY_MS);
    this.bans.clear();
  }

  /**
   * Adds the request's weight for the IP and returns the total. Over the limit: 429 (-1003), and
   * once the IP has had `banAfter429s` of those in the window, a ban: 418 (-1003) until it ends.
   */
  spendWeight(ip: string, weight: number, now: number): number {
    // No ban ever given (the usual case): no lookup of the IP among the bans.
    if (this.bans.size > 0) this.checkBan(ip, now);
    if (this.config.rawRequestsPer5m !== undefined) this.countRawRequest(ip, now);
    const cell = this.weight.cellOf(ip, now);
    const used = cell?.count ?? 0;
    const limit = this.config.requestWeightPerMinute;
    if (used + weight > limit) {
      if (this.refusals.used(ip, now) >= this.config.banAfter429s) this.ban(ip, now);
      this.refusals.add(ip, 1, now);
      throw tooMuchWeight(limit, {
        "Retry-After": String(this.weight.secondsLeft(now)),
        ...weightHeaders(used),
      });
    }
    // `cellOf` has rolled the window: the new total goes into the IP's cell, not set in the Map again.
    if (cell === undefined) return this.weight.set(ip, weight);
    cell.count = used + weight;
    return cell.count;
  }

  /** Counts one request of the IP; 429 (-1003) past RAW_REQUESTS, and a ban as for weight. */
  private countRawRequest(ip: string, now: number): void {
    const limit = this.config.rawRequestsPer5m as number;
    const cell = this.raw.cellOf(ip, now);
    const used = cell?.count ?? 0;
    if (used >= limit) {
      if (this.refusals.used(ip, now) >= this.config.banAfter429s) this.ban(ip, now);
      this.refusals.add(ip, 1, now);
      throw tooManyRequests(limit, {
        "Retry-After": String(this.raw.secondsLeft(now)),
        ...weightHeaders(this.usedWeight(ip, now)),
      });
    }
    if (cell === undefined) this.raw.set(ip, 1);
    else cell.count = used + 1;
  }

  /** 418 while the IP is banned. */
  private checkBan(ip: string, now: number): void {
    const refusal = this.banOf(ip, now);
    if (refusal) throw refusal;
  }

  /** The 418 answer while the IP is banned, else undefined. */
  banOf(ip: string, now: number): ApiError | undefined {
    const ban = this.bans.get(ip);
    if (ban === undefined || now >= ban.until) return undefined;
    return ipBanned(ban.until, {
      "Retry-After": String(Math.max(1, Math.ceil((ban.until - now) / 1000))),
      ...weightHeaders(this.usedWeight(ip, now)),
    });
  }

  private ban(ip: string, now: number): never {
    const count = (this.bans.get(ip)?.count ?? 0) + 1;
    const length = Math.min(this.config.banSeconds * 1000 * 2 ** (count - 1), MAX_BAN_MS);
    this.bans.set(ip, { until: now + length, count });
    this.checkBan(ip, now);
    throw new Error("unreachable: the ban has just started");
  }

  usedWeight(ip: string, now: number): number {
    return this.weight.used(ip, now);
  }

  /** 429 (-1015) when the account may not place another order now. */
  checkOrderRate(accountId: string, now: number): void {
    const { ordersPer10s, ordersPerDay } = this.config;
    if (this.orders10s.used(accountId, now) >= ordersPer10s) {
      throw tooManyOrders(ordersPer10s, "10 SECOND", this.orders10s.secondsLeft(now));
    }
    if (this.ordersDay.used(accountId, now) >= ordersPerDay) {
      throw tooManyOrders(ordersPerDay, "1 DAY", this.ordersDay.secondsLeft(now));
    }
  }

  countOrder(accountId: string, now: number): OrderCounts {
    return { tenSeconds: this.orders10s.add(accountId, 1, now), day: this.ordersDay.add(accountId, 1, now) };
  }

  /** exchangeInfo.rateLimits. */
  describe(): { rateLimitType: string; interval: string; intervalNum: number; limit: number }[] {
    return [
      {
        rateLimitType: "REQUEST_WEIGHT",
        interval: "MINUTE",
        intervalNum: 1,
        limit: this.config.requestWeightPerMinute,
      },
      { rateLimitType: "ORDERS", interval: "SECOND", intervalNum: 10, limit: this.config.ordersPer10s },
      { rateLimitType: "ORDERS", interval: "DAY", intervalNum: 1, limit: this.config.ordersPerDay },
      ...(this.config.rawRequestsPer5m === undefined
        ? []
        : [
            {
              rateLimitType: "RAW_REQUESTS",
              interval: "MINUTE",
              intervalNum: 5,
              limit: this.config.rawRequestsPer5m,
            },
          ]),
    ];
  }
}

/** The used-weight headers: the one-minute counter and its legacy name (the same value). */
export function weightHeaders(used: number): Record<string, string> {
  return { "X-MBX-USED-WEIGHT-1M": String(used), "X-MBX-USED-WEIGHT": String(used) };
}

/**
 * The weight of one request: the spec's `x-weight` with its parameter rule (depth by `limit`, the
 * 24-hour ticker and open orders without `symbol`, ...), or what a weighed live-API extra costs.
 */
export function requestWeight(operation: ServerOperation, params: RequestParams | undefined): number {
  const values = params?.values;
  return (
    extraWeight(operation.operationId, values) ??
    weightByRule(operation.weightRule, values ? Object.fromEntries(values) : undefined)
  );
}
