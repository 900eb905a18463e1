// Candle intervals by meaning (kit/candle-intervals.ts): boundaries in a time zone, the series'
// alignment, and a longer candle folded from the shorter ones it covers.
import { describe, expect, it } from "vitest";
import { parseDec } from "../src/core/decimal.js";
import type { Candle } from "../src/kit/account-views.js";
import {
  alignmentProblems,
  coveringCandles,
  currentCandleProblem,
  foldProblems,
  intervalCut,
  zoneMinutesOf,
} from "../src/kit/candle-intervals.js";

const at = (text: string) => Date.parse(text);

describe("intervalCut: where a candle holding a time opens", () => {
  it.each([
    { interval: "1m", zone: 0, time: "2026-11-30T10:17:42.123Z", want: "2026-11-30T10:17:00.000Z" },
    { interval: "15m", zone: 0, time: "2026-11-30T10:17:42Z", want: "2026-11-30T10:15:00.000Z" },
    { interval: "1h", zone: -210, time: "2026-11-30T10:17:42Z", want: "2026-11-30T09:30:00.000Z" },
    { interval: "1d", zone: 0, time: "2026-11-30T23:59:59.999Z", want: "2026-11-30T00:00:00.000Z" },
    { interval: "1d", zone: 480, time: "2026-11-30T15:00:00Z", want: "2026-11-29T16:00:00.000Z" },
    { interval: "1d", zone: 480, time: "2026-11-30T16:00:00Z", want: "2026-11-30T16:00:00.000Z" },
    // 2026-11-30 is a Monday; 2026-11-29 a Sunday.
    { interval: "1w", zone: 0, time: "2026-12-02T12:00:00Z", want: "2026-11-30T00:00:00.000Z" },
    { interval: "1w", zone: 0, time: "2026-11-29T23:59:59Z", want: "2026-11-23T00:00:00.000Z" },
    { interval: "1w", zone: 345, time: "2026-11-29T19:00:00Z", want: "2026-11-29T18:15:00.000Z" },
    { interval: "1M", zone: 0, time: "2026-11-30T12:00:00Z", want: "2026-11-01T00:00:00.000Z" },
    { interval: "1M", zone: -210, time: "2026-12-01T02:00:00Z", want: "2026-11-01T03:30:00.000Z" },
    { interval: "3d", zone: 0, time: "1970-01-04T00:00:00Z", want: "1970-01-04T00:00:00.000Z" },
    { interval: "3d", zone: 0, time: "1970-01-03T23:59:59Z", want: "1970-01-01T00:00:00.000Z" },
  ])("$interval in $zone minutes east, $time → $want", ({ interval, zone, time, want }) => {
    const cut = intervalCut(interval, zone)!;
    expect(new Date(cut.open(at(time))).toISOString()).toBe(want);
  });

  it.each([
    { interval: "1M", open: "2026-02-01T00:00:00Z", want: "2026-03-01T00:00:00.000Z" },
    { interval: "1M", open: "2026-12-01T00:00:00Z", want: "2027-01-01T00:00:00.000Z" },
    { interval: "1w", open: "2026-11-30T00:00:00Z", want: "2026-12-07T00:00:00.000Z" },
  ])("$interval after $open opens $want", ({ interval, open, want }) => {
    expect(new Date(intervalCut(interval, 0)!.next(at(open))).toISOString()).toBe(want);
  });

  it("knows no interval the document does not name", () => {
    expect(intervalCut("7x", 0)).toBeUndefined();
  });

  it.each([
    { given: "0", want: 0 },
    { given: "8", want: 480 },
    { given: "-03:30", want: -210 },
    { given: "+05:45", want: 345 },
    { given: "UTC", want: undefined },
  ])("timeZone $given is $want minutes east", ({ given, want }) => {
    expect(zoneMinutesOf(given)).toBe(want);
  });
});

function candle(
  open: string,
  close: string,
  fields: Partial<Record<keyof Candle, string | number>> = {},
): Candle {
  const dec = (key: keyof Candle, fallback: string) => parseDec(String(fields[key] ?? fallback));
  return {
    openTime: at(open),
    closeTime: at(close),
    open: dec("open", "100"),
    high: dec("high", "100"),
    low: dec("low", "100"),
    close: dec("close", "100"),
    volume: dec("volume", "0"),
    quoteVolume: dec("quoteVolume", "0"),
    count: Number(fields.count ?? 0),
    takerBuyBase: dec("takerBuyBase", "0"),
    takerBuyQuote: dec("takerBuyQuote", "0"),
  };
}

describe("alignmentProblems", () => {
  const cut = intervalCut("5m", 0)!;
  it.each([
    {
      name: "aligned and continuous",
      given: [
        candle("2026-11-30T10:00:00Z", "2026-11-30T10:04:59.999Z"),
        candle("2026-11-30T10:05:00Z", "2026-11-30T10:09:59.999Z"),
      ],
      want: [],
    },
    {
      name: "off the boundary",
      given: [candle("2026-11-30T10:01:00Z", "2026-11-30T10:05:59.999Z")],
      want: ["does not open on a boundary"],
    },
    {
      name: "closing at the next open",
      given: [candle("2026-11-30T10:00:00Z", "2026-11-30T10:05:00Z")],
      want: ["closes at"],
    },
    {
      name: "a gap",
      given: [
        candle("2026-11-30T10:00:00Z", "2026-11-30T10:04:59.999Z"),
        candle("2026-11-30T10:10:00Z", "2026-11-30T10:14:59.999Z"),
      ],
      want: ["a gap"],
    },
  ])("$name", ({ given, want }) => {
    const problems = alignmentProblems(given, cut);
    expect(problems).toHaveLength(want.length);
    for (const [i, part] of want.entries()) expect(problems[i]).toContain(part);
  });
});

describe("currentCandleProblem: the series ends with the candle that holds the server's time", () => {
  const older = candle("2026-11-30T10:04:00Z", "2026-11-30T10:04:59.999Z");
  const current = candle("2026-11-30T10:05:00Z", "2026-11-30T10:05:59.999Z");
  it.each([
    {
      name: "ends with the open candle",
      given: [older, current],
      before: "10:05:20",
      after: "10:05:21",
      want: undefined,
    },
    {
      name: "the minute turned during the read",
      given: [older, current],
      before: "10:04:59.990",
      after: "10:05:00.010",
      want: undefined,
    },
    { name: "no candle (no trade yet)", given: [], before: "10:05:20", after: "10:05:21", want: undefined },
    {
      name: "the open candle left out",
      given: [older],
      before: "10:05:20",
      after: "10:05:21",
      want: "closes at",
    },
    {
      name: "a candle from the future",
      given: [older, current],
      before: "10:04:10",
      after: "10:04:11",
      want: "opens at",
    },
  ])("$name", ({ given, before, after, want }) => {
    const problem = currentCandleProblem(given, at(`2026-11-30T${before}Z`), at(`2026-11-30T${after}Z`));
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(want);
  });
});

describe("a longer candle folded from the shorter ones it covers", () => {
  const fine = [
    candle("2026-11-30T10:00:00Z", "2026-11-30T10:00:59.999Z", { open: 99, high: 99, low: 99, close: 99 }),
    candle("2026-11-30T10:01:00Z", "2026-11-30T10:01:59.999Z", {
      open: 100,
      high: 104,
      low: 98,
      close: 101,
      volume: "1.5",
      quoteVolume: "150",
      count: 3,
      takerBuyBase: "0.5",
      takerBuyQuote: "50",
    }),
    candle("2026-11-30T10:02:00Z", "2026-11-30T10:02:59.999Z", {
      open: 102,
      high: 103,
      low: 97,
      close: 97,
      volume: "2",
      quoteVolume: "200",
      count: 2,
      takerBuyBase: "1",
      takerBuyQuote: "100",
    }),
  ];
  const span = ["2026-11-30T10:00:00Z", "2026-11-30T10:02:59.999Z"] as const;
  const right = {
    open: 100,
    high: 104,
    low: 97,
    close: 97,
    volume: "3.5",
    quoteVolume: "350",
    count: 5,
    takerBuyBase: "1.5",
    takerBuyQuote: "150",
  };

  it("is covered whole by them, and not by a part of them", () => {
    expect(coveringCandles(candle(...span), fine)).toHaveLength(3);
    expect(coveringCandles(candle(...span), fine.slice(1))).toBeUndefined();
    expect(coveringCandles(candle(...span), [fine[0]!, fine[2]!])).toBeUndefined();
  });

  it.each([
    { name: "the fold", given: right, want: [] },
    { name: "open of the first quiet one", given: { ...right, open: 99 }, want: ["open is 99"] },
    { name: "high of one only", given: { ...right, high: 103 }, want: ["high is 103"] },
    { name: "low unwritten", given: { ...right, low: 0 }, want: ["low is 0"] },
    { name: "volume of the last only", given: { ...right, volume: "2" }, want: ["volume is 2"] },
    { name: "count one short", given: { ...right, count: 4 }, want: ["number of trades is 4"] },
    {
      name: "taker volume of all",
      given: { ...right, takerBuyBase: "3.5" },
      want: ["taker buy base volume is 3.5"],
    },
  ])("$name", ({ given, want }) => {
    const problems = foldProblems(candle(...span, given), fine);
    expect(problems).toHaveLength(want.length);
    for (const [i, part] of want.entries()) expect(problems[i]).toContain(part);
  });

  it("with no trade in any: the first one's open four times and nothing traded", () => {
    const quiet = [fine[0]!];
    const one = ["2026-11-30T10:00:00Z", "2026-11-30T10:00:59.999Z"] as const;
    expect(foldProblems(candle(...one, { open: 99, high: 99, low: 99, close: 99 }), quiet)).toEqual([]);
    expect(foldProblems(candle(...one, { open: 99, high: 99, low: 99, close: 100 }), quiet)).toHaveLength(1);
  });
});
