// The pacer: requests wait for their budget instead of earning a 429, and nothing goes while the
// exchange has asked for a pause (Retry-After) or banned the address (418).

import {
  type CounterHeaders,
  DEFAULT_COUNTER_HEADERS,
  type HeaderSource,
  reportedCounters,
  retryAfterMs,
} from "./answer-headers.js";
import { type PacerClock, systemClock } from "./clock.js";
import { PacerWaitError, type WaitReason } from "./pacer-wait-error.js";
import { type LimitKind, type LimitRule, type RateLimit, readLimits } from "./rate-limits.js";
import { requestWeight, type WeightRule } from "./weight.js";

/** What one request spends. */
export interface PacedRequest {
  /**
   * Its request weight, counted against REQUEST_WEIGHT limits: a number, or the operation's
   * x-weight rule, whose weight the pacer takes for `params` (`requestWeight`).
   */
  readonly weight: number | WeightRule;
  /** The request's parameters, for a weight that depends on one. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Orders it places (1 for a new order); counts against the ORDERS limits of `account`. */
  readonly orders?: number;
  /** The account whose ORDERS limits apply (order limits are per account, the others per address); default "". */
  readonly account?: string;
}

/** An answer, as far as the pacer reads it. */
export interface PacerAnswer {
  /** The HTTP status; 0 when no answer came (connection lost, timed out). */
  readonly status: number;
  readonly headers?: HeaderSource;
}

export interface AcquireOptions {
  /** Gives up waiting (the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /**
   * The longest the caller will wait, for anything. A request that would wait longer is not
   * granted: the promise rejects with a `PacerWaitError` saying until when and why, as soon as
   * that is known.
   */
  readonly maxWaitMs?: number;
  /**
   * The longest the caller will wait for a pause the exchange asked for (a 429's Retry-After, a 418
   * ban); waits for the budget are not bounded by it. Refused the same way.
   */
  readonly maxHoldMs?: number;
}

/** The right to send one request; settle it with the answer, or release it when nothing was sent. */
export interface Permit {
  /** How long the request waited for its budget (ms of the pacer's clock). */
  readonly waitedMs: number;
  /** Reports the answer: its counters and status (429, 418) update the budget of every sharer. */
  settle(answer: PacerAnswer): void;
  /** Nothing was sent: what the request reserved is given back. */
  release(): void;
}

/** A pause every request (scope "all") or every order (scope "orders") waits out. */
export interface PacerHold {
  readonly until: number;
  readonly reason: WaitReason;
  readonly scope: "all" | "orders";
  /** In words: "IP banned (418)", "429 Retry-After", … */
  readonly detail: string;
}

/** One limit's state, for reports and tests. */
export interface LimitState extends RateLimit {
  /** What the pacer lets requests spend of it (`limit` × `share`). */
  readonly budget: number;
  /** Spent in the current window, as far as the pacer knows (its own requests and the answers' counters). */
  readonly used: number;
  /** The account, for ORDERS limits. */
  readonly account?: string;
  readonly windowEndsAt: number;
}

export interface PacerSnapshot {
  readonly limits: readonly LimitState[];
  readonly holds: readonly PacerHold[];
  /** Requests waiting for their budget. */
  readonly waiting: number;
  /** Requests granted and not settled yet. */
  readonly inFlight: number;
  /** Requests granted since the pacer was made. */
  readonly granted: number;
}

export interface PacerOptions {
  /** The limits to keep, as exchangeInfo announces them (`rateLimits`); `setLimits` replaces them. */
  readonly limits?: readonly RateLimit[];
  /** The share of each limit the pacer spends, above 0 and at most 1 (default 1): leave room for other programs on the address. */
  readonly share?: number;
  /** The clock (default: the system's). Windows are epoch-aligned on it, as the exchange counts them. */
  readonly clock?: PacerClock;
  /** The clocks' slack at a window's end (default 200 ms): the next window is spent only this long after it began here. */
  readonly windowGuardMs?: number;
  /** The header prefixes of the answers' counters (default: `x-mbx-used-weight-`, `x-mbx-order-count-`). */
  readonly counterHeaders?: CounterHeaders;
  /** The ban assumed when a 418 carries no Retry-After (default 2 minutes, the live API's first ban). */
  readonly defaultBanMs?: number;
  /** The longest ban a Retry-After is believed for (default 3 days, the longest documented ban). */
  readonly maxBanMs?: number;
  /** Told of each pause that starts or grows: a 429's Retry-After, a 418 ban. */
  readonly onHold?: (hold: PacerHold) => void;
}

/** Paces requests by the limits they spend; one pacer per address, shared by every client on it. */
export interface Pacer {
  /** Waits until the request may go, and reserves what it spends. */
  acquire(request: PacedRequest, options?: AcquireOptions): Promise<Permit>;
  /** Keeps these limits from now on (exchangeInfo's `rateLimits`); what was spent in the current windows is kept. */
  setLimits(limits: readonly RateLimit[]): void;
  /** Reads an answer to a request sent without a permit: its counters, Retry-After and ban. */
  observe(answer: PacerAnswer, request?: PacedRequest): void;
  /** Holds requests (every request, or only orders) until `until` on the pacer's clock. */
  hold(hold: PacerHold): void;
  snapshot(): PacerSnapshot;
}

const DEFAULT_BAN_MS = 120_000;
const MAX_BAN_MS = 3 * 86_400_000;

/** A limit's count in its current window, for one address ("") or one account. */
class Counter {
  window = Number.NEGATIVE_INFINITY;
  used = 0;
  /**
   * Reserved by requests not answered yet: where the exchange counts them is unknown until they
   * are answered, so a new window starts with them spent.
   */
  inflight = 0;

  constructor(
    public rule: LimitRule,
    public budget: number,
    readonly account: string,
  ) {}

  roll(now: number): void {
    const window = Math.floor(now / this.rule.windowMs);
    if (window <= this.window) return;
    this.window = window;
    this.used = this.inflight;
  }

  endsAt(): number {
    return (this.window + 1) * this.rule.windowMs;
  }
}

interface Reservation {
  counter: Counter;
  amount: number;
  window: number;
}

interface Waiter {
  request: PacedRequest;
  /** The request's weight, taken once. */
  weight: number;
  since: number;
  deadline: number;
  maxWaitMs: number | undefined;
  /** The latest a hold may end for this waiter to wait it out. */
  holdDeadline: number;
  maxHoldMs: number | undefined;
  resolve(permit: Permit): void;
  reject(error: unknown): void;
  detach(): void;
}

function amountOf(kind: LimitKind, request: PacedRequest, weight: number): number {
  if (kind === "REQUEST_WEIGHT") return weight;
  if (kind === "ORDERS") return request.orders ?? 0;
  return 1;
}

/** The request's weight, checked. */
function checkRequest(request: PacedRequest): number {
  const { orders = 0 } = request;
  const weight = requestWeight(request.weight, request.params);
  if (!(Number.isFinite(weight) && weight >= 0))
    throw new TypeError(`pacer: a request's weight must be a number of at least 0, got ${weight}`);
  if (!(Number.isInteger(orders) && orders >= 0))
    throw new TypeError(`pacer: a request's orders must be a whole number of at least 0, got ${orders}`);
  return weight;
}

/** A pacer; share one between every client that sends from the same address. */
export function createPacer(options: PacerOptions = {}): Pacer {
  const clock = options.clock ?? systemClock;
  const share = options.share ?? 1;
  if (!(share > 0 && share <= 1))
    throw new RangeError(`pacer: share must be above 0 and at most 1, got ${share}`);
  const guardMs = options.windowGuardMs ?? 200;
  const headers = options.counterHeaders ?? DEFAULT_COUNTER_HEADERS;
  const defaultBanMs = options.defaultBanMs ?? DEFAULT_BAN_MS;
  const maxBanMs = options.maxBanMs ?? MAX_BAN_MS;

  let rules: LimitRule[] = [];
  /** Counters by `kind|windowMs|account`. */
  const counters = new Map<string, Counter>();
  const holds: { all?: PacerHold; orders?: PacerHold } = {};
  const queue: Waiter[] = [];
  /** The last value each counter header reported, and when: limits announced later start from them. */
  const reportedAt = new Map<string, { value: number; at: number }>();
  let inFlight = 0;
  let granted = 0;
  let cancelTimer: (() => void) | undefined;
  let pumpQueued = false;
  let wakeAt = Number.POSITIVE_INFINITY;

  const budgetOf = (rule: LimitRule) => Math.max(1, Math.floor(rule.limit * share));
  const keyOf = (rule: LimitRule, account: string) =>
    `${rule.kind}|${rule.windowMs}|${rule.kind === "ORDERS" ? account : ""}`;

  function counterOf(rule: LimitRule, account: string, now: number): Counter {
    const key = keyOf(rule, account);
    let counter = counters.get(key);
    if (!counter) {
      counter = new Counter(rule, budgetOf(rule), rule.kind === "ORDERS" ? account : "");
      counters.set(key, counter);
      counter.roll(now);
      const reported = reportedAt.get(`${rule.kind}|${rule.suffix}|${counter.account}`);
      if (reported && Math.floor(reported.at / rule.windowMs) === counter.window)
        counter.used = reported.value;
    }
    counter.roll(now);
    return counter;
  }

  function setLimits(limits: readonly RateLimit[]): void {
    rules = readLimits(limits);
    const live = new Set<string>();
    for (const counter of counters.values()) {
      const rule = rules.find((r) => r.kind === counter.rule.kind && r.windowMs === counter.rule.windowMs);
      const key = keyOf(counter.rule, counter.account);
      if (!rule) continue;
      counter.rule = rule;
      counter.budget = budgetOf(rule);
      live.add(key);
    }
    for (const key of [...counters.keys()]) if (!live.has(key)) counters.delete(key);
    pump();
  }

  function needsOf(request: PacedRequest, weight: number, now: number): Reservation[] {
    const needs: Reservation[] = [];
    for (const rule of rules) {
      const amount = amountOf(rule.kind, request, weight);
      if (amount <= 0) continue;
      const counter = counterOf(rule, request.account ?? "", now);
      needs.push({ counter, amount, window: counter.window });
    }
    return needs;
  }

  function activeHold(request: PacedRequest, now: number): PacerHold | undefined {
    const all = holds.all && holds.all.until > now ? holds.all : undefined;
    const orders =
      (request.orders ?? 0) > 0 && holds.orders && holds.orders.until > now ? holds.orders : undefined;
    if (all && orders) return all.until >= orders.until ? all : orders;
    return all ?? orders;
  }

  function grant(waiter: Waiter, needs: Reservation[], now: number): void {
    for (const need of needs) {
      need.counter.used += need.amount;
      need.counter.inflight += need.amount;
    }
    inFlight++;
    granted++;
    waiter.detach();
    waiter.resolve(permitFor(waiter.request, needs, now - waiter.since));
  }

  function permitFor(request: PacedRequest, reservations: Reservation[], waitedMs: number): Permit {
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      inFlight--;
      for (const r of reservations) r.counter.inflight -= r.amount;
      return true;
    };
    const giveBack = (kinds: readonly LimitKind[]) => {
      for (const r of reservations)
        if (kinds.includes(r.counter.rule.kind) && r.counter.window === r.window) r.counter.used -= r.amount;
    };
    return {
      waitedMs,
      settle(answer) {
        if (!close()) return;
        // A refused order was not placed: it does not count (a lost answer might have been placed).
        if (answer.status >= 400 && answer.status < 500) giveBack(["ORDERS"]);
        read(answer, request, reservations);
        pump();
      },
      release() {
        if (!close()) return;
        giveBack(["REQUEST_WEIGHT", "ORDERS", "RAW_REQUESTS"]);
        pump();
      },
    };
  }

  /** The answer's counters (merged with what the pacer counted) and its pause, if it asks for one. */
  function read(answer: PacerAnswer, request: PacedRequest | undefined, reservations?: Reservation[]): void {
    const now = clock.now();
    if (answer.headers) {
      for (const reported of reportedCounters(answer.headers, headers)) {
        const account = reported.kind === "ORDERS" ? (request?.account ?? "") : "";
        reportedAt.set(`${reported.kind}|${reported.suffix}|${account}`, { value: reported.value, at: now });
        const rule = rules.find((r) => r.kind === reported.kind && r.suffix === reported.suffix);
        if (!rule) continue;
        const counter = counterOf(rule, request?.account ?? "", now);
        // A count from a window that has ended here says nothing of the current one.
        const window = reservations?.find((r) => r.counter === counter)?.window ?? counter.window;
        if (window === counter.window) counter.used = Math.max(counter.used, reported.value);
      }
    }
    if (answer.status === 418) {
      const ms = Math.min(retryAfter(answer, now) ?? defaultBanMs, maxBanMs);
      hold({ until: now + ms, reason: "ban", scope: "all", detail: "IP banned (418)" });
    } else if (answer.status === 429) {
      tooMany(answer, request, now);
    }
  }

  function retryAfter(answer: PacerAnswer, now: number): number | undefined {
    return answer.headers ? retryAfterMs(answer.headers, now) : undefined;
  }

  /**
   * A 429: an order limit when the request placed orders and the weight counter is under its
   * budget, else the weight. The limits of that kind whose window ends within the pause count as
   * spent, and every request of the kind waits for the Retry-After (or those windows' end).
   */
  function tooMany(answer: PacerAnswer, request: PacedRequest | undefined, now: number): void {
    const ordersOnly =
      (request?.orders ?? 0) > 0 &&
      rules
        .filter((r) => r.kind === "REQUEST_WEIGHT")
        .every((r) => {
          const counter = counterOf(r, "", now);
          return counter.used < counter.budget;
        });
    const kinds: LimitKind[] = ordersOnly ? ["ORDERS"] : ["REQUEST_WEIGHT", "RAW_REQUESTS"];
    const affected = rules
      .filter((r) => kinds.includes(r.kind))
      .map((r) => counterOf(r, request?.account ?? "", now));
    const shortest = Math.min(...affected.map((c) => c.endsAt()));
    const until = now + (retryAfter(answer, now) ?? (Number.isFinite(shortest) ? shortest - now : 1000));
    for (const counter of affected)
      if (counter.endsAt() <= until + guardMs) counter.used = Math.max(counter.used, counter.budget);
    hold({
      until,
      reason: "retry-after",
      scope: ordersOnly ? "orders" : "all",
      detail: ordersOnly ? "order limit reached (429)" : "request limit reached (429)",
    });
  }

  function hold(next: PacerHold): void {
    const current = holds[next.scope];
    if (current && current.until >= next.until) return;
    holds[next.scope] = next;
    options.onHold?.(next);
    pump();
  }

  /** Pumps once the current turn's acquires, settles and holds are in: one pass over the queue for all of them. */
  function pump(): void {
    if (pumpQueued) return;
    pumpQueued = true;
    queueMicrotask(() => {
      pumpQueued = false;
      pumpNow();
    });
  }

  /** Grants every waiter that fits, in order; a limit that stops one waiter stops those behind it too. */
  function pumpNow(): void {
    const now = clock.now();
    const blocked = new Set<Counter>();
    /** When the first waiter stopped by an address-wide limit may go: those behind it that need it wait as long. */
    let addressBlockedUntil: number | undefined;
    let wake = Number.POSITIVE_INFINITY;
    for (const waiter of [...queue]) {
      // A waiter that needs a blocked address-wide limit (every request spends RAW_REQUESTS, nearly
      // every one REQUEST_WEIGHT) waits at least as long, unless it has a deadline to check.
      if (
        addressBlockedUntil !== undefined &&
        waiter.weight > 0 &&
        waiter.deadline === Number.POSITIVE_INFINITY &&
        waiter.holdDeadline === Number.POSITIVE_INFINITY
      )
        continue;
      const needs = needsOf(waiter.request, waiter.weight, now);
      let until = 0;
      let reason: WaitReason = "budget";
      let detail = "";
      const held = activeHold(waiter.request, now);
      if (held) {
        until = held.until;
        reason = held.reason;
        detail = held.detail;
      }
      for (const need of needs) {
        const counter = need.counter;
        const fits = counter.used + need.amount <= counter.budget || counter.used === 0;
        if (fits && !blocked.has(counter)) continue;
        blocked.add(counter);
        const end = counter.endsAt() + guardMs;
        if (counter.rule.kind !== "ORDERS" && addressBlockedUntil === undefined) addressBlockedUntil = end;
        if (end > until) {
          until = end;
          if (!held) {
            const { rateLimitType, intervalNum, interval, limit } = counter.rule.announced;
            detail = `${rateLimitType} ${limit} per ${intervalNum} ${interval}`;
          }
        }
      }
      if (until <= now) {
        grant(waiter, needs, now);
        continue;
      }
      const tooLong = until > waiter.deadline || (held !== undefined && held.until > waiter.holdDeadline);
      if (tooLong) {
        const limit = until > waiter.deadline ? waiter.maxWaitMs : waiter.maxHoldMs;
        waiter.detach();
        waiter.reject(new PacerWaitError(until, reason, detail, limit ?? 0));
        continue;
      }
      wake = Math.min(wake, until);
    }
    schedule(wake);
  }

  function schedule(at: number): void {
    if (at === wakeAt) return;
    cancelTimer?.();
    cancelTimer = undefined;
    wakeAt = at;
    if (!Number.isFinite(at)) return;
    cancelTimer = clock.setTimer(
      () => {
        wakeAt = Number.POSITIVE_INFINITY;
        cancelTimer = undefined;
        pumpNow();
      },
      Math.max(0, at - clock.now()),
    );
  }

  if (options.limits) rules = readLimits(options.limits);

  return {
    acquire(request, acquireOptions = {}) {
      const weight = checkRequest(request);
      const { signal, maxWaitMs, maxHoldMs } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const since = clock.now();
      return new Promise<Permit>((resolve, reject) => {
        const waiter: Waiter = {
          request,
          weight,
          since,
          deadline: maxWaitMs === undefined ? Number.POSITIVE_INFINITY : since + maxWaitMs,
          maxWaitMs,
          holdDeadline: maxHoldMs === undefined ? Number.POSITIVE_INFINITY : since + maxHoldMs,
          maxHoldMs,
          resolve,
          reject,
          detach() {
            const i = queue.indexOf(waiter);
            if (i !== -1) queue.splice(i, 1);
            signal?.removeEventListener("abort", onAbort);
          },
        };
        const onAbort = () => {
          waiter.detach();
          reject(signal!.reason);
          pump();
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
        pump();
      });
    },
    setLimits,
    observe(answer, request) {
      read(answer, request);
      pump();
    },
    hold,
    snapshot() {
      const now = clock.now();
      for (const rule of rules) if (rule.kind !== "ORDERS") counterOf(rule, "", now);
      const limits: LimitState[] = [];
      for (const counter of counters.values()) {
        counter.roll(now);
        limits.push({
          ...counter.rule.announced,
          budget: counter.budget,
          used: counter.used,
          ...(counter.rule.kind === "ORDERS" ? { account: counter.account } : {}),
          windowEndsAt: counter.endsAt(),
        });
      }
      return {
        limits,
        holds: [holds.all, holds.orders].filter((h): h is PacerHold => h !== undefined && h.until > now),
        waiting: queue.length,
        inFlight,
        granted,
      };
    },
  };
}
