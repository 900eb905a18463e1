// The CSV price series a user gives the simulated market to replay: what is read, and every fault
// located by line and column.
import { InputFault } from "@marketapi/command";
import { describe, expect, it } from "vitest";
import { parsePriceSeries, priceAt } from "../../src/sandbox/price-series.js";

const SYMBOLS = ["BTCUSDT", "ETHUSDT"];

describe("reading a price series", () => {
  it.each([
    {
      given: "time,price\n1700000000000,100\n1700000060000,101.5\n",
      want: [{ symbol: undefined, offsets: [0, 60_000], prices: [100, 101.5] }],
    },
    {
      given:
        "open_time,open,high,low,close,volume\n1700000000000,1,2,0.5,100,7\n1700000060000000,1,2,0.5,99,7\n",
      want: [{ symbol: undefined, offsets: [0, 60_000], prices: [100, 99] }],
    },
    {
      given: "Date,Close\n2024-01-01,100\n2024-01-02T00:00:00Z,110\r\n",
      want: [{ symbol: undefined, offsets: [0, 86_400_000], prices: [100, 110] }],
    },
    {
      given: "time,symbol,price\n0,BTCUSDT,60000\n0,ETHUSDT,3000\n1000,BTCUSDT,60010\n",
      want: [
        { symbol: "BTCUSDT", offsets: [0, 1000], prices: [60000, 60010] },
        { symbol: "ETHUSDT", offsets: [0], prices: [3000] },
      ],
    },
  ])("$given", ({ given, want }) => {
    expect(parsePriceSeries(given, "prices.csv", SYMBOLS)).toEqual(want);
  });

  it.each([
    { given: "when,price\n1,2\n", want: "prices.csv (line 1, column 1): expected a header row" },
    { given: "time,price\n", want: "prices.csv (line 2, column 1): expected at least one row" },
    {
      given: "time,price\n1,2\nyesterday,3\n",
      want: 'prices.csv (line 3, column 1): expected a time (epoch milliseconds or ISO 8601), found "yesterday"',
    },
    {
      given: "time,price\n1,2\n2,-3\n",
      want: 'prices.csv (line 3, column 3): expected a positive decimal price, found "-3"',
    },
    {
      given: "time,price\n1,2\n2,0\n",
      want: 'prices.csv (line 3, column 3): expected a positive decimal price, found "0"',
    },
    { given: "time,price\n5,2\n5,3\n", want: "prices.csv (line 3, column 1): expected times to increase" },
    { given: "time,price\n5,2\n6\n", want: "prices.csv (line 3, column 3): expected a price, found nothing" },
    {
      given: "time,symbol,price\n5,SOLUSDT,2\n",
      want: 'prices.csv (line 2, column 3): expected one of the server\'s symbols (BTCUSDT, ETHUSDT), found "SOLUSDT"',
    },
  ])("refuses $given", ({ given, want }) => {
    let fault: unknown;
    try {
      parsePriceSeries(given, "prices.csv", SYMBOLS);
    } catch (error) {
      fault = error;
    }
    expect(fault).toBeInstanceOf(InputFault);
    expect((fault as Error).message).toContain(want);
  });
});

describe("a series' price at a time", () => {
  const series = { symbol: undefined, offsets: [0, 1000, 3000], prices: [100, 110, 90] };
  it.each([
    { offset: -5, want: 100 },
    { offset: 0, want: 100 },
    { offset: 500, want: 105 },
    { offset: 1000, want: 110 },
    { offset: 2000, want: 100 },
    { offset: 3000, want: 90 },
    { offset: 99_999, want: 90 },
  ])("at $offset ms: $want", ({ offset, want }) => {
    expect(priceAt(series, offset)).toBeCloseTo(want, 9);
  });
});
