// The relation checks' arithmetic (given/want tables), and a window judged at its edges: with the
// trade source's page cut to five trades (a spec copy), the 24-hour window holds more trades than
// one page, so trade_statistics judges its first and last trades and says so; a count one short
// still fails.
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { parseDec } from "../src/core/decimal.js";
import { placesOf, sameToLastPlace, type TradeRow } from "../src/kit/relations-support.js";
import { measureProblems, measuresOf, recentWindowTrades } from "../src/kit/trade-windows.js";
import { runAgainstFault } from "./support/mutation.js";
import { relationFaults } from "./support/relation-faults.js";

describe("a decimal the answer shows, against the exact value", () => {
  it.each([
    { shown: "1.23456789", exact: "1.234567891", want: true },
    { shown: "1.23456789", exact: "1.234567899", want: true },
    { shown: "1.23456790", exact: "1.234567891", want: true },
    { shown: "1.23456788", exact: "1.23456789", want: false },
    { shown: "1.23456791", exact: "1.23456789", want: false },
    { shown: "27000", exact: "27000.4", want: true },
    { shown: "27000", exact: "27001", want: false },
    { shown: "-0.125", exact: "-0.1251", want: true },
    { shown: "12", exact: "12", want: true },
  ])("$shown for $exact: $want", ({ shown, exact, want }) => {
    expect(sameToLastPlace(shown, parseDec(exact))).toBe(want);
  });

  it("is false for what is not decimal text", () => {
    expect(sameToLastPlace(12, parseDec("12"))).toBe(false);
    expect(sameToLastPlace("1e3", parseDec("1000"))).toBe(false);
    expect(placesOf("0.00100000")).toBe(8);
    expect(placesOf("5")).toBe(0);
  });
});

const trade = (id: number, price: string, qty: string, time: number): TradeRow => ({
  id,
  price: parseDec(price),
  qty: parseDec(qty),
  quoteQty: (parseDec(price) * parseDec(qty)) / 10n ** 20n,
  time,
  buyerMaker: false,
  bestMatch: true,
});

describe("the measures of the trades in a window", () => {
  it("gives count, ids, first and last, extremes, sums, the weighted average and the change", () => {
    const m = measuresOf([trade(7, "100", "1", 1000), trade(8, "110", "3", 1001), trade(9, "90", "1", 1002)]);
    expect(m).toMatchObject({ count: 3, firstId: 7, lastId: 9, lastTime: 1002 });
    expect(m.firstPrice).toBe(parseDec("100"));
    expect(m.lastPrice).toBe(parseDec("90"));
    expect(m.lastQty).toBe(parseDec("1"));
    expect(m.highPrice).toBe(parseDec("110"));
    expect(m.lowPrice).toBe(parseDec("90"));
    expect(m.volume).toBe(parseDec("5"));
    expect(m.quoteVolume).toBe(parseDec("520"));
    expect(m.weightedAverage).toBe(parseDec("104"));
    expect(m.change).toBe(parseDec("-10"));
    expect(m.changePercent).toBe(parseDec("-10"));
  });
});

describe("the trades of a window of the last minutes, the server's time bracketed", () => {
  // Window of 1000 ms; the answer was made between server times 5000 and 5010, so its start lies
  // from 4000 to 4010.
  const trades = (...times: number[]) => times.map((time, i) => trade(i + 1, "100", "1", time));
  it.each([
    { given: [3990, 4011, 4500], want: { inside: [2, 3] } },
    { given: [4000, 4500], want: { inside: [2], edge: 1 } },
    { given: [4010, 4500], want: { inside: [2], edge: 1 } },
    { given: [4005, 4500], want: { inside: [2], edge: 1 } },
    { given: [3999, 4011], want: { inside: [2] } },
    { given: [3000], want: { inside: [] } },
  ])("trades at $given → $want", ({ given, want }) => {
    const got = recentWindowTrades(trades(...given), { from: 5000, to: 5010 }, 1000);
    expect({ inside: got.inside.map((t) => t.id), ...(got.edge ? { edge: got.edge.id } : {}) }).toEqual(want);
  });
});

describe("an answer's measures against the trades' values", () => {
  const window = {
    name: "average price",
    operation: "current_average_price",
    window: { minutes: "/mins" },
    measures: { weightedAverage: "/price", lastTime: "/closeTime" },
    empty: {},
  };
  const expected = measuresOf([trade(1, "100", "1", 1000), trade(2, "110", "3", 1001)]);
  it.each([
    { given: { price: "107.50000000", closeTime: 1001 }, want: [] },
    { given: { price: "107.5", closeTime: 1001 }, want: [] },
    {
      given: { price: "107.49", closeTime: 1001 },
      want: ['/price is "107.49"; the trades give 107.5 (weightedAverage)'],
    },
    {
      given: { price: "107.5", closeTime: 1002 },
      want: ["/closeTime is 1002; the trades give 1001 (lastTime)"],
    },
    {
      given: { closeTime: "1001" },
      want: [
        "/price is undefined; the trades give 107.5 (weightedAverage)",
        '/closeTime is "1001"; the trades give 1001 (lastTime)',
      ],
    },
  ])("$given → $want", ({ given, want }) => {
    expect(measureProblems(window, given, expected, "the trades")).toEqual(want);
  });

  // The average of 100 × 1 and 110.37 × 3 is 107.7775: shown in whole units, it passes its last
  // place but is more than a tick of 0.01 off.
  const precise = measuresOf([trade(1, "100", "1", 1000), trade(2, "110.37", "3", 1001)]);
  it.each([
    { name: "whole units, no tick given", given: "108", tick: undefined, want: 0 },
    { name: "whole units against a tick of 0.01", given: "108", tick: "0.01", want: 1 },
    { name: "rounded to the tick", given: "107.78", tick: "0.01", want: 0 },
    { name: "truncated to the tick", given: "107.77", tick: "0.01", want: 0 },
    { name: "eight places", given: "107.77750000", tick: "0.01", want: 0 },
  ])("a price to the tick: $name", ({ given, tick, want }) => {
    const problems = measureProblems(
      window,
      { price: given, closeTime: 1001 },
      precise,
      "the trades",
      tick === undefined ? undefined : parseDec(tick),
    );
    expect(problems).toHaveLength(want);
  });
});

/** The spec with the trade source's page cut to `page` trades. */
function specWithTradePage(page: number) {
  const spec = loadOpenApi() as {
    paths: Record<string, Record<string, Record<string, { maximum?: number }>>>;
  };
  const limit = spec.paths["/api/v3/historicalTrades"]!.get!["x-limit"]!;
  limit.maximum = page;
  (limit as { default?: number }).default = page;
  return spec as never;
}

describe("a 24-hour window with more trades than one page", () => {
  const only = ["trade_statistics"] as const;
  it("is judged at its first and last trades, and noted so", async () => {
    const outcome = await runAgainstFault(undefined, { spec: specWithTradePage(5), only });
    const cell = outcome.result.cells.find(
      (c) => c.check === "trade_statistics" && c.operationId === "ticker_price_change_statistics24hr",
    );
    expect(outcome.exitCode).toBe(0);
    expect(cell?.status).toBe("passed");
    expect(cell?.reason).toContain("judged at its first and last trades only");
  });

  it("fails a count one short", async () => {
    const fault = relationFaults().find((f) => f.name === "ticker24hr-count-off-by-one")!;
    const outcome = await runAgainstFault(fault, { spec: specWithTradePage(5), only });
    expect(outcome.failedChecks).toEqual(["trade_statistics"]);
    const cell = outcome.result.cells.find((c) => c.check === "trade_statistics" && c.status === "failed");
    expect(cell?.failures[0]?.message).toMatch(
      /\/count is \d+; its first and last trades give \d+ \(count\)/,
    );
  });
});
