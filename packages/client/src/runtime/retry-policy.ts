// What the client retries, when, and how long it waits (README, "Retries").

/** The `retry` option: what a call may do after a failure. `false` turns every part off. */
export interface RetryOptions {
  /** Sends after the first (default 2): after a 429, a 418's ban, a 5xx, a timeout or a lost connection. */
  attempts?: number;
  /** The first backoff (default 200 ms); each next one doubles, up to `maxDelayMs` (default 5000); full jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest a call waits for a Retry-After or a ban's end (default 30000 ms); a longer one is not waited for. The pacer's budget waits are not bounded by it. */
  maxWaitMs?: number;
  /**
   * A request that changes state and whose outcome is unknown is looked up (x-outcome-lookup)
   * before it is ever sent again (default true). `false`: it is never sent again, and the call
   * throws an `OutcomeUnknownError`.
   */
  lookups?: boolean;
  /** After a timestamp refused as outside the receive window (-1021), measure the clock again and send once more (default true; needs `syncClock`). */
  clock?: boolean;
}

export interface RetryPolicy {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxWaitMs: number;
  readonly lookups: boolean;
  readonly clock: boolean;
}

/** HTTP methods whose requests have the same effect sent once or twice (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

export function retryPolicy(option: RetryOptions | false | undefined): RetryPolicy {
  const policy: Record<string, unknown> = {
    attempts: 2,
    baseDelayMs: 200,
    maxDelayMs: 5000,
    maxWaitMs: 30_000,
    lookups: true,
    clock: true,
  };
  const given = option === false ? { attempts: 0, lookups: false, clock: false } : option;
  for (const key in given) {
    const value = given[key as keyof RetryOptions];
    if (value === undefined) continue;
    if (typeof policy[key] === "number" && !(Number.isInteger(value) && (value as number) >= 0))
      throw new RangeError(`retry.${key} must be a whole number of at least 0, got ${value}`);
    policy[key] = value;
  }
  return policy as unknown as RetryPolicy;
}

/** The wait before send number `sent + 1`: full jitter over an exponential step, capped. */
export function backoffMs(policy: RetryPolicy, sent: number, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, sent - 1));
  return Math.floor(random() * step);
}
