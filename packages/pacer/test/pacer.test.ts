// The pacer on a clock the test moves: what it grants, when, and what answers change.
import { describe, expect, it } from "vitest";
import { createPacer, type PacedRequest, type Pacer, PacerWaitError, type Permit } from "../src/index.js";
import { type ManualClock, manualClock } from "./support/manual-clock.js";

const MINUTE = 60_000;
const limits = [
  { rateLimitType: "REQUEST_WEIGHT", interval: "MINUTE", intervalNum: 1, limit: 100 },
  { rateLimitType: "ORDERS", interval: "SECOND", intervalNum: 10, limit: 3 },
];

/**
 * Acquires without waiting on the result: the permits granted so far are in `granted`. Each is
 * answered (200, no headers) as soon as it is granted, unless `answered` is false: the test then
 * settles it itself.
 */
function start(pacer: Pacer, requests: PacedRequest[], options = {}, answered = true) {
  const granted: Permit[] = [];
  const errors: unknown[] = [];
  const order: number[] = [];
  for (const [i, request] of requests.entries())
    pacer.acquire(request, options).then(
      (permit) => {
        granted.push(permit);
        order.push(i);
        if (answered) permit.settle({ status: 200 });
      },
      (error) => errors.push(error),
    );
  return { granted, errors, order };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function pacerOn(clock: ManualClock, extra = {}) {
  return createPacer({ limits, clock, windowGuardMs: 0, ...extra });
}

describe("the pacer's budgets", () => {
  it("grants what fits in the window and holds the rest until the next window", async () => {
    const clock = manualClock(10 * MINUTE + 1000);
    const pacer = pacerOn(clock);
    const run = start(
      pacer,
      Array.from({ length: 6 }, () => ({ weight: 20 })),
    );
    await flush();
    expect(run.granted).toHaveLength(5);
    expect(pacer.snapshot().waiting).toBe(1);
    await clock.advance(MINUTE - 1001);
    expect(run.granted).toHaveLength(5);
    await clock.advance(1);
    expect(run.granted).toHaveLength(6);
    expect(run.granted[5]!.waitedMs).toBe(MINUTE - 1000);
  });

  it("counts orders per account, and lets reads pass an order that waits for its window", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const order = { weight: 1, orders: 1, account: "a" };
    const run = start(pacer, [
      order,
      order,
      order,
      order,
      { weight: 1, orders: 1, account: "b" },
      { weight: 1 },
    ]);
    await flush();
    expect(run.order).toEqual([0, 1, 2, 4, 5]);
    await clock.advance(10_000);
    expect(run.order).toEqual([0, 1, 2, 4, 5, 3]);
  });

  it("keeps the order of waiters that need the same limit (a heavy request is not starved)", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const run = start(pacer, [{ weight: 90 }, { weight: 50 }, { weight: 5 }]);
    await flush();
    expect(run.order).toEqual([0]);
    await clock.advance(MINUTE);
    expect(run.order).toEqual([0, 1, 2]);
  });

  it("sends a request heavier than a whole window alone into an empty window", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const run = start(pacer, [{ weight: 10 }, { weight: 250 }]);
    await flush();
    expect(run.order).toEqual([0]);
    await clock.advance(MINUTE);
    expect(run.order).toEqual([0, 1]);
  });

  it("spends only its share of each limit", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock, { share: 0.5 });
    const run = start(
      pacer,
      Array.from({ length: 4 }, () => ({ weight: 20 })),
    );
    await flush();
    expect(run.granted).toHaveLength(2);
  });

  it("is shared: two clients' requests spend one budget", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const first = start(pacer, [{ weight: 60 }]);
    const second = start(pacer, [{ weight: 60 }]);
    await flush();
    expect([first.granted.length, second.granted.length]).toEqual([1, 0]);
    await clock.advance(MINUTE);
    expect(second.granted).toHaveLength(1);
  });

  it("takes limits announced later, keeping what the answers said the window has spent", async () => {
    const clock = manualClock(0);
    const pacer = createPacer({ clock, windowGuardMs: 0 });
    const before = start(
      pacer,
      Array.from({ length: 10 }, () => ({ weight: 20 })),
      {},
      false,
    );
    await flush();
    expect(before.granted).toHaveLength(10);
    for (const [i, permit] of before.granted.entries())
      permit.settle({ status: 200, headers: { "X-MBX-USED-WEIGHT-1M": String(20 * (i + 1)) } });
    pacer.setLimits(limits);
    const after = start(pacer, [{ weight: 1 }]);
    await flush();
    expect(after.granted).toHaveLength(0);
    expect(pacer.snapshot().limits.find((l) => l.rateLimitType === "REQUEST_WEIGHT")?.used).toBe(200);
  });

  it("gives back a released permit, and a refused order's count", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const run = start(pacer, [{ weight: 100 }, { weight: 100 }], {}, false);
    await flush();
    run.granted[0]!.release();
    await flush();
    expect(run.granted).toHaveLength(2);

    const orders = start(
      pacer,
      Array.from({ length: 4 }, () => ({ weight: 0, orders: 1 })),
      {},
      false,
    );
    await flush();
    expect(orders.granted).toHaveLength(3);
    orders.granted[0]!.settle({ status: 400 });
    await flush();
    expect(orders.granted).toHaveLength(4);
    // An order whose answer was lost may have been placed: it keeps counting.
    orders.granted[1]!.settle({ status: 0 });
    const more = start(pacer, [{ weight: 0, orders: 1 }]);
    await flush();
    expect(more.granted).toHaveLength(0);
  });
});

describe("what the answers say", () => {
  it("adopts a used-weight counter above its own (another program on the address)", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const run = start(pacer, [{ weight: 1 }], {}, false);
    await flush();
    run.granted[0]!.settle({ status: 200, headers: new Headers({ "X-MBX-USED-WEIGHT-1M": "95" }) });
    const next = start(pacer, [{ weight: 5 }, { weight: 1 }]);
    await flush();
    expect(next.granted).toHaveLength(1);
  });

  it("ignores a counter from a window that has ended since the request was granted", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const run = start(pacer, [{ weight: 1 }], {}, false);
    await flush();
    await clock.advance(MINUTE);
    run.granted[0]!.settle({ status: 200, headers: { "x-mbx-used-weight-1m": "99" } });
    expect(pacer.snapshot().limits.find((l) => l.rateLimitType === "REQUEST_WEIGHT")?.used).toBe(0);
  });

  it("holds every request until a 429's Retry-After, and counts the window as spent", async () => {
    const clock = manualClock(0);
    const holds: unknown[] = [];
    const pacer = pacerOn(clock, { onHold: (hold: unknown) => holds.push(hold) });
    const run = start(pacer, [{ weight: 1 }], {}, false);
    await flush();
    run.granted[0]!.settle({ status: 429, headers: { "Retry-After": "60", "X-MBX-USED-WEIGHT-1M": "100" } });
    expect(holds).toEqual([
      { until: MINUTE, reason: "retry-after", scope: "all", detail: "request limit reached (429)" },
    ]);
    const next = start(pacer, [{ weight: 1 }]);
    await clock.advance(MINUTE - 1);
    expect(next.granted).toHaveLength(0);
    await clock.advance(1);
    expect(next.granted).toHaveLength(1);
  });

  it("holds only orders after an order limit's 429 while the weight is under its budget", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const run = start(pacer, [{ weight: 1, orders: 1 }], {}, false);
    await flush();
    run.granted[0]!.settle({ status: 429, headers: { "Retry-After": "10", "X-MBX-USED-WEIGHT-1M": "1" } });
    const next = start(pacer, [{ weight: 1, orders: 1 }, { weight: 1 }]);
    await flush();
    expect(next.order).toEqual([1]);
    await clock.advance(10_000);
    expect(next.order).toEqual([1, 0]);
  });

  it("holds every request during a 418 ban (2 minutes without Retry-After), says so, and refuses to wait past maxWaitMs", async () => {
    const clock = manualClock(0);
    const holds: { until: number; reason: string }[] = [];
    const pacer = pacerOn(clock, { onHold: (hold: { until: number; reason: string }) => holds.push(hold) });
    pacer.observe({ status: 418 });
    expect(holds).toMatchObject([{ until: 120_000, reason: "ban", scope: "all" }]);
    const patient = start(pacer, [{ weight: 1 }]);
    const hurried = start(pacer, [{ weight: 1 }], { maxWaitMs: 10_000 });
    await flush();
    expect(hurried.errors).toHaveLength(1);
    const error = hurried.errors[0] as PacerWaitError;
    expect(error).toBeInstanceOf(PacerWaitError);
    expect(error.message).toBe(
      "not sent: it would wait until 1970-01-01T00:02:00.000Z (IP banned (418)), longer than the 10000 ms allowed",
    );
    await clock.advance(119_999);
    expect(patient.granted).toHaveLength(0);
    await clock.advance(1);
    expect(patient.granted).toHaveLength(1);
  });

  it("believes a ban's Retry-After up to 3 days", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    pacer.observe({ status: 418, headers: { "Retry-After": String(30 * 86_400) } });
    expect(pacer.snapshot().holds).toMatchObject([{ until: 3 * 86_400_000 }]);
  });
});

describe("waiting", () => {
  it("stops waiting when the caller's signal aborts", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    start(pacer, [{ weight: 100 }]);
    const controller = new AbortController();
    const waiting = pacer.acquire({ weight: 1 }, { signal: controller.signal });
    await flush();
    controller.abort(new Error("caller gave up"));
    await expect(waiting).rejects.toThrow("caller gave up");
    expect(pacer.snapshot().waiting).toBe(0);
  });

  it("rejects a budget wait longer than maxWaitMs, naming the limit", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    start(pacer, [{ weight: 100 }]);
    await expect(pacer.acquire({ weight: 1 }, { maxWaitMs: 1000 })).rejects.toThrow(
      "(REQUEST_WEIGHT 100 per 1 MINUTE)",
    );
  });

  it.each([
    { given: { weight: -1 }, want: "weight must be a number of at least 0, got -1" },
    { given: { weight: Number.NaN }, want: "weight must be a number of at least 0, got NaN" },
    { given: { weight: 1, orders: 0.5 }, want: "orders must be a whole number of at least 0, got 0.5" },
  ])("refuses $given", ({ given, want }) => {
    expect(() => createPacer().acquire(given)).toThrow(want);
  });
});

describe("bounds on waiting", () => {
  it("bounds holds with maxHoldMs, not the budget's waits", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    start(pacer, [{ weight: 100 }]);
    const budget = start(pacer, [{ weight: 1 }], { maxHoldMs: 1000 });
    await flush();
    expect(budget.errors).toEqual([]);
    pacer.observe({ status: 418, headers: { "Retry-After": "60" } });
    const held = start(pacer, [{ weight: 1 }], { maxHoldMs: 1000 });
    await flush();
    expect(held.errors).toHaveLength(1);
    expect((held.errors[0] as PacerWaitError).reason).toBe("ban");
    expect((held.errors[0] as PacerWaitError).maxWaitMs).toBe(1000);
  });

  it("takes an operation's weight rule with the request's parameters", async () => {
    const clock = manualClock(0);
    const pacer = pacerOn(clock);
    const rule = {
      weight: 5,
      parameter: "limit",
      tiers: [
        { upTo: 100, weight: 5 },
        { upTo: 500, weight: 25 },
      ],
    };
    const run = start(pacer, [
      { weight: rule, params: { limit: 500 } },
      { weight: rule, params: { limit: 500 } },
      { weight: rule, params: { limit: 500 } },
      { weight: rule, params: { limit: 500 } },
      { weight: rule, params: { limit: 10 } },
    ]);
    await flush();
    expect(run.order).toEqual([0, 1, 2, 3]);
    expect(pacer.snapshot().limits.find((l) => l.rateLimitType === "REQUEST_WEIGHT")?.used).toBe(100);
  });
});
