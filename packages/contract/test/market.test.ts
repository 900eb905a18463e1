// The market module (src/kit/market.ts): the one reader of exchangeInfo's filters, and the sizing
// rules of the run's orders, each stated once.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatDec, parseDec, unitOf } from "../src/core/decimal.js";
import {
  farPrice,
  noPriceFallback,
  offsetIsSure,
  planFarBuy,
  quantityForExactAverage,
  readExchangeInfo,
  rulesOf,
  smallestMarketQuantity,
  smallestQuantity,
} from "../src/kit/market.js";

const BTCUSDT = {
  symbol: "BTCUSDT",
  status: "TRADING",
  baseAsset: "BTC",
  quoteAsset: "USDT",
  orderTypes: ["LIMIT", "MARKET"],
  quoteAssetPrecision: 8,
  filters: [
    {
      filterType: "PRICE_FILTER",
      minPrice: "0.01000000",
      maxPrice: "1000000.00000000",
      tickSize: "0.01000000",
    },
    { filterType: "LOT_SIZE", minQty: "0.00001000", maxQty: "9000.00000000", stepSize: "0.00001000" },
    { filterType: "NOTIONAL", minNotional: "5.00000000", maxNotional: "9000000.00000000" },
    // 10 % inside the bid multiplier: 60000 × 0.2 × 1.1 = 13200, above a fifth of the market
    { filterType: "PERCENT_PRICE_BY_SIDE", bidMultiplierDown: "0.2", askMultiplierUp: "5" },
    { filterType: "ICEBERG_PARTS", limit: 10 },
    { filterType: "MAX_NUM_ORDERS", maxNumOrders: 200 },
    {
      filterType: "TRAILING_DELTA",
      minTrailingAboveDelta: 10,
      maxTrailingAboveDelta: 2000,
      minTrailingBelowDelta: 10,
      maxTrailingBelowDelta: 2000,
    },
  ],
};
const rules = rulesOf(BTCUSDT);
const d = parseDec;

describe("rulesOf reads every filter once", () => {
  it("prices, quantities, notional, percent price, parts, counts, trailing delta", () => {
    expect(formatDec(rules.tick)).toBe("0.01");
    expect(formatDec(rules.step)).toBe("0.00001");
    expect(formatDec(rules.minNotional)).toBe("5");
    expect(formatDec(rules.bidMultiplierDown!)).toBe("0.2");
    expect(formatDec(rules.askMultiplierUp!)).toBe("5");
    expect(rules.icebergParts).toBe(10);
    expect(rules.maxOrders).toBe(200);
    expect(rules.maxAlgoOrders).toBeUndefined();
    expect(rules.trailingDelta).toEqual({ minAbove: 10, maxAbove: 2000, minBelow: 10, maxBelow: 2000 });
    expect(rules.baseAsset).toBe("BTC");
  });

  it("a malformed exchangeInfo yields no symbols, not an error", () => {
    expect(readExchangeInfo({ symbols: [null, 3, { symbol: 4 }] }).symbols).toEqual([]);
    expect(readExchangeInfo("nonsense")).toEqual({ symbols: [], weightLimit: undefined, rateLimits: [] });
  });

  it("reads the per-minute weight limit", () => {
    const market = readExchangeInfo({
      symbols: [],
      rateLimits: [{ rateLimitType: "REQUEST_WEIGHT", interval: "MINUTE", intervalNum: 1, limit: 6000 }],
    });
    expect(market.weightLimit).toBe(6000);
  });
});

describe("the sizing rules", () => {
  const quantities = [
    // 5 × 1.1 / 60000 = 0.0000916…, up to the step
    { given: { price: "60000" }, want: "0.00010" },
    // the minimum quantity wins where the notional is small
    { given: { price: "600000" }, want: "0.00001" },
  ];
  it.each(quantities)("smallest quantity at $given.price is $want", ({ given, want }) => {
    expect(formatDec(smallestQuantity(rules, d(given.price)))).toBe(formatDec(d(want)));
  });

  const market = [
    // the notional twice the margin: 5 × 1.1 × 1.1 / 60000 = 0.0001008…, up to the step
    { name: "no MARKET_LOT_SIZE", given: {}, want: "0.00011" },
    {
      name: "a MARKET_LOT_SIZE minQty of 0 (the live API's)",
      given: { minQty: "0", stepSize: "0" },
      want: "0.00011",
    },
    {
      name: "a MARKET_LOT_SIZE minQty above the notional's",
      given: { minQty: "0.001", stepSize: "0" },
      want: "0.001",
    },
    { name: "a MARKET_LOT_SIZE step of its own", given: { minQty: "0", stepSize: "0.0001" }, want: "0.0002" },
  ];
  it.each(market)("smallest MARKET quantity at 60000, $name: $want", ({ given, want }) => {
    const lot =
      given.minQty === undefined ? [] : [{ filterType: "MARKET_LOT_SIZE", maxQty: "100", ...given }];
    const withLot = rulesOf({ ...BTCUSDT, filters: [...BTCUSDT.filters, ...lot] });
    expect(formatDec(smallestMarketQuantity(withLot, d("60000")))).toBe(formatDec(d(want)));
  });

  const far = [
    { given: { reference: "60000", side: "BUY" as const }, want: "13200" },
    { given: { reference: "60000", side: "SELL" as const }, want: "270000" },
    // a bid multiplier that allows no price 10 % below the market: none
    { given: { reference: "60000", side: "BUY" as const, down: "0.85" }, want: undefined },
  ];
  it.each(far)("far price $given → $want", ({ given, want }) => {
    const r = given.down ? { ...rules, bidMultiplierDown: d(given.down) } : rules;
    const price = farPrice(r, d(given.reference), given.side);
    expect(price === undefined ? undefined : formatDec(price)).toBe(want);
  });

  it("a far buy rests at the far price with the smallest quantity there", () => {
    expect(planFarBuy(rules, d("60000"))).toEqual({ symbol: "BTCUSDT", price: "13200", quantity: "0.00042" });
    expect(planFarBuy({ ...rules, orderTypes: ["MARKET"] }, d("60000"))).toEqual({
      reason: "BTCUSDT does not accept LIMIT orders",
    });
  });

  const exactAverages = [
    // one price: every quantity lands on it, so the smallest the filters accept
    { given: { qty: "0.001", quote: "60", price: "60000" }, want: "0.0001" },
    // (1.8 + 60000.01 × 0.00012) / 0.00015 = 60000.008
    { given: { qty: "0.00003", quote: "1.8", price: "60000.01" }, want: "0.00012" },
    // (740.4321 + 59990.47 × 0.00016) / 0.0125 = 60002.446016
    { given: { qty: "0.01234", quote: "740.4321", price: "59990.47" }, want: "0.00016" },
    // LOT_SIZE caps the quantity below any that lands: none
    { given: { qty: "0.00003", quote: "1.8", price: "60000.01", maxQty: "0.0001" }, want: undefined },
  ];
  it.each(exactAverages)("the quantity that makes $given's average exact is $want", ({ given, want }) => {
    const r = given.maxQty ? { ...rules, maxQty: d(given.maxQty) } : rules;
    const window = { qty: d(given.qty), quote: d(given.quote) };
    const q = quantityForExactAverage(r, window, d(given.price), unitOf(8));
    expect(q === undefined ? undefined : formatDec(q)).toBe(want);
  });

  const offsets = [
    // the buy of 0.0001 filled in full: as sure as the buy was, though the bid sits lower
    { given: { executed: "0.0001", sized: "0.0001", reference: "50000" }, want: true },
    // a part fill of half: 0.00005 × 60000 = 3, below the minimum notional 5 (CI saw it refused)
    { given: { executed: "0.00005", sized: "0.0001", reference: "60000" }, want: false },
    // a part fill that still reaches the smallest quantity at the bid
    { given: { executed: "0.0001", sized: "0.0002", reference: "60000" }, want: true },
    { given: { executed: "0.00009", sized: "0.0002", reference: "60000" }, want: false },
  ];
  it.each(offsets)("an offset of $given.executed is sure: $want", ({ given, want }) => {
    expect(offsetIsSure(rules, d(given.executed), d(given.sized), d(given.reference))).toBe(want);
  });

  it("without a market price, trades where the smallest quantity meets the minimum notional", () => {
    expect(formatDec(noPriceFallback(rules))).toBe("550000");
  });
});

describe("each rule is stated in the market module only", () => {
  const src = fileURLToPath(new URL("../src", import.meta.url));
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
    );
  const rulesOutside = (pattern: RegExp) =>
    files(src)
      .filter((f) => relative(src, f) !== join("kit", "market.ts") && pattern.test(readFileSync(f, "utf8")))
      .map((f) => relative(src, f));

  it("no other module reads exchangeInfo's filters", () => {
    expect(rulesOutside(/filterType/)).toEqual([]);
  });
  it("no other module states a margin or a far-price ratio (1/5, 9/10, 11/10, 12/10)", () => {
    expect(rulesOutside(/fromRatio\((1, 5|9, 10|11, 10|12, 10|5, 1)\)/)).toEqual([]);
  });
});
