import { describe, expect, it } from "vitest";
import { readLimits, reportedCounters, retryAfterMs } from "../src/index.js";

describe("reportedCounters", () => {
  it("reads the used weight and order counts from fetch Headers and from node:http's header objects", () => {
    const fetched = new Headers({
      "X-MBX-USED-WEIGHT-1M": "31",
      "X-MBX-USED-WEIGHT": "31",
      "X-MBX-ORDER-COUNT-10S": "2",
      "x-mbx-order-count-1d": "7",
      "Content-Type": "application/json",
    });
    const want = [
      { kind: "ORDERS", suffix: "10s", value: 2 },
      { kind: "ORDERS", suffix: "1d", value: 7 },
      { kind: "REQUEST_WEIGHT", suffix: "1m", value: 31 },
    ];
    const sorted = (list: ReturnType<typeof reportedCounters>) =>
      [...list].sort((a, b) => (a.kind + a.suffix < b.kind + b.suffix ? -1 : 1));
    expect(sorted(reportedCounters(fetched))).toEqual(want);
    expect(
      sorted(
        reportedCounters({
          "x-mbx-used-weight-1m": "31",
          "x-mbx-order-count-10s": ["1", "2"],
          "x-mbx-order-count-1d": 7,
        }),
      ),
    ).toEqual(want);
  });

  it("ignores values that are not whole numbers and names without a window", () => {
    expect(
      reportedCounters({
        "x-mbx-used-weight-1m": "lots",
        "x-mbx-used-weight-": "3",
        "x-mbx-used-weight-1x": "3",
      }),
    ).toEqual([]);
  });

  it("reads the counters of a fork under the prefixes it is given", () => {
    expect(
      reportedCounters({ "x-ratelimit-weight-1m": "9" }, { REQUEST_WEIGHT: "X-RateLimit-Weight-" }),
    ).toEqual([{ kind: "REQUEST_WEIGHT", suffix: "1m", value: 9 }]);
  });
});

describe("retryAfterMs", () => {
  it.each([
    { given: { "Retry-After": "30" }, want: 30_000 },
    { given: { "retry-after": "0" }, want: 0 },
    { given: { "Retry-After": new Date(1_000_000 + 5_000).toUTCString() }, want: 5_000 },
    { given: { "Retry-After": "soon" }, want: undefined },
    { given: {}, want: undefined },
  ])("$given → $want ms", ({ given, want }) => {
    // The HTTP date has whole seconds: the clock is on a whole second too.
    expect(retryAfterMs(given, 1_000_000)).toBe(want);
  });
});

describe("readLimits", () => {
  it("keeps the kinds it counts and leaves others out", () => {
    const rules = readLimits([
      { rateLimitType: "REQUEST_WEIGHT", interval: "MINUTE", intervalNum: 1, limit: 6000 },
      { rateLimitType: "ORDERS", interval: "SECOND", intervalNum: 10, limit: 100 },
      { rateLimitType: "CONNECTIONS", interval: "MINUTE", intervalNum: 5, limit: 300 },
    ]);
    expect(rules.map((r) => [r.kind, r.windowMs, r.limit, r.suffix])).toEqual([
      ["REQUEST_WEIGHT", 60_000, 6000, "1m"],
      ["ORDERS", 10_000, 100, "10s"],
    ]);
  });

  it.each([
    {
      given: [{ rateLimitType: "ORDERS", interval: "WEEK", intervalNum: 1, limit: 1 }],
      want: /rate limits\[0\]: interval must be SECOND, MINUTE, HOUR or DAY, got "WEEK"/,
    },
    {
      given: [{ rateLimitType: "ORDERS", interval: "DAY", intervalNum: 0, limit: 1 }],
      want: /intervalNum must be a whole number of at least 1, got 0/,
    },
    {
      given: [{ rateLimitType: "ORDERS", interval: "DAY", intervalNum: 1, limit: -5 }],
      want: /limit must be a whole number of at least 1, got -5/,
    },
  ])("refuses $given, naming the entry", ({ given, want }) => {
    expect(() => readLimits(given)).toThrow(want);
  });
});
