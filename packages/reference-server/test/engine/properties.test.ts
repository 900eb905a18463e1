import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  ApiError,
  createExchange,
  decimal as dec,
  type Exchange,
  MemoryHistory,
  type NewOrderParams,
  ORDER_TYPES,
  type OrderType,
  type SymbolConfig,
  stateFaults,
} from "../../src/engine/index.js";
import { type TestClock, testClock } from "./support.js";

const TRADERS = ["t0", "t1", "t2"] as const;
const SYMBOLS = ["BTCUSDT", "ETHUSDT", "ETHBTC"] as const;

type Command =
  | {
      kind: "place";
      trader: number;
      symbol: (typeof SYMBOLS)[number];
      side: "BUY" | "SELL";
      type: OrderType;
      tif: "GTC" | "IOC" | "FOK";
      priceBps: number;
      stopBps: number;
      notionalUnits: number;
      byQuote: boolean;
      iceberg: boolean;
      trailingDelta: number | null;
    }
  | { kind: "cancel"; trader: number; pick: number }
  | { kind: "tick"; ms: number };

/** What a scenario varies: how far limit prices stray, which symbols, which types (repeat = weight). */
interface Flow {
  spreadBps: number;
  symbols: readonly (typeof SYMBOLS)[number][];
  types: readonly OrderType[];
}

const placeCommand = (flow: Flow) =>
  fc.record({
    kind: fc.constant("place" as const),
    trader: fc.integer({ min: 0, max: TRADERS.length - 1 }),
    symbol: fc.constantFrom(...flow.symbols),
    side: fc.constantFrom("BUY" as const, "SELL" as const),
    type: fc.constantFrom(...flow.types),
    tif: fc.constantFrom("GTC" as const, "IOC" as const, "FOK" as const),
    priceBps: fc.integer({ min: -flow.spreadBps, max: flow.spreadBps }),
    stopBps: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 20 })),
    notionalUnits: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 400, max: 6000 })),
    byQuote: fc.boolean(),
    iceberg: fc.boolean(),
    trailingDelta: fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.integer({ min: 10, max: 150 }) },
    ),
  });
const command = (flow: Flow): fc.Arbitrary<Command> =>
  fc.oneof(
    { weight: 8, arbitrary: placeCommand(flow) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("cancel" as const),
        trader: fc.integer({ min: 0, max: TRADERS.length - 1 }),
        pick: fc.nat(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 1, max: 600_000 }) }),
    },
  );

const priced = new Set<OrderType>(["LIMIT", "LIMIT_MAKER", "STOP_LOSS_LIMIT", "TAKE_PROFIT_LIMIT"]);
const stops = new Set<OrderType>(["STOP_LOSS", "STOP_LOSS_LIMIT", "TAKE_PROFIT", "TAKE_PROFIT_LIMIT"]);

function filterValue(config: SymbolConfig, type: string, field: string): bigint {
  const filter = config.filters.find((f) => f.filterType === type) as unknown as Record<string, string>;
  return dec.parse(filter[field] ?? "0");
}

function atBps(config: SymbolConfig, reference: bigint, bps: number): string {
  const tick = filterValue(config, "PRICE_FILTER", "tickSize");
  const price = dec.floorToStep((reference * BigInt(10_000 + bps)) / 10_000n, tick);
  return dec.format(price, 8);
}

/**
 * Stops sit a few bps beyond the price the next trade in their direction prints (best ask
 * for rise-triggered, best bid for fall-triggered), so that a fair share of them fire.
 */
function stopPriceFor(
  ex: Exchange,
  config: SymbolConfig,
  c: Extract<Command, { kind: "place" }>,
  reference: bigint,
) {
  const rises = (c.type === "STOP_LOSS" || c.type === "STOP_LOSS_LIMIT") === (c.side === "BUY");
  const book = ex.bookTicker(c.symbol);
  const anchor = dec.parse(rises ? book.askPrice : book.bidPrice);
  return atBps(config, anchor > 0n ? anchor : reference, rises ? c.stopBps : -c.stopBps);
}

/** Turns a generated command into order parameters around the symbol's current price. */
function orderParams(ex: Exchange, c: Extract<Command, { kind: "place" }>): NewOrderParams {
  const config = ex.symbolConfig(c.symbol);
  const last = dec.parse(ex.tickerPrice(c.symbol).price);
  const reference = last > 0n ? last : dec.parse(config.referencePrice);
  const price = dec.parse(atBps(config, reference, c.priceBps));
  const step = filterValue(config, "LOT_SIZE", "stepSize");
  const notional = filterValue(config, "NOTIONAL", "minNotional") * BigInt(c.notionalUnits);
  const quantity = dec.floorToStep(dec.div(notional, price), step) + step;
  const params: NewOrderParams = { symbol: c.symbol, side: c.side, type: c.type };
  if (c.type === "MARKET" && c.byQuote) params.quoteOrderQty = dec.format(notional, 8);
  else params.quantity = dec.format(quantity, 8);
  if (priced.has(c.type)) params.price = dec.format(price, 8);
  if (priced.has(c.type) && c.type !== "LIMIT_MAKER") params.timeInForce = c.iceberg ? "GTC" : c.tif;
  if (priced.has(c.type) && c.iceberg)
    params.icebergQty = dec.format(dec.floorToStep(quantity / 4n, step) + step, 8);
  if (stops.has(c.type)) {
    if (c.trailingDelta !== null) params.trailingDelta = c.trailingDelta;
    if (c.trailingDelta === null || c.stopBps % 2 === 0)
      params.stopPrice = stopPriceFor(ex, config, c, reference);
  }
  return params;
}

function run(ex: Exchange, c: Command, clock: { advance(ms: number): void }): void {
  try {
    if (c.kind === "tick") clock.advance(c.ms);
    else if (c.kind === "place") ex.newOrder(TRADERS[c.trader] ?? "t0", orderParams(ex, c));
    else {
      const trader = TRADERS[c.trader] ?? "t0";
      const open = ex.openOrders(trader);
      const victim = open[c.pick % Math.max(open.length, 1)];
      if (victim) ex.cancelOrder(trader, { symbol: victim.symbol, orderId: victim.orderId });
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
}

function expectBooksUncrossed(ex: Exchange): void {
  for (const symbol of SYMBOLS) {
    const { bidPrice, askPrice } = ex.bookTicker(symbol);
    const [bid, ask] = [dec.parse(bidPrice), dec.parse(askPrice)];
    if (bid > 0n && ask > 0n) expect(bid < ask, `${symbol} crossed: ${bidPrice} >= ${askPrice}`).toBe(true);
  }
}

/** executedQty ≤ origQty, FILLED means all of it, and the quantities equal the sum of the trades. */
function orderTradeMismatches(history: MemoryHistory): string[] {
  const problems: string[] = [];
  for (const { symbol, orders, trades } of history.contents()) {
    const filled = new Map<number, { qty: bigint; quote: bigint }>();
    for (const trade of trades) {
      for (const orderId of [trade.buyer.orderId, trade.seller.orderId]) {
        const sum = filled.get(orderId) ?? { qty: 0n, quote: 0n };
        filled.set(orderId, { qty: sum.qty + trade.qty, quote: sum.quote + trade.quoteQty });
      }
    }
    for (const order of orders) {
      const id = `${symbol}#${order.orderId}`;
      const sum = filled.get(order.orderId) ?? { qty: 0n, quote: 0n };
      const open = order.status === "NEW" || order.status === "PARTIALLY_FILLED";
      if (!open && order.locked !== 0n) problems.push(`${id} closed but locks`);
      if (order.executedQty > order.origQty) problems.push(`${id} overfilled`);
      if (order.status === "FILLED" && order.executedQty !== order.origQty)
        problems.push(`${id} FILLED but not complete`);
      if (order.executedQty !== sum.qty) problems.push(`${id} executedQty differs from its trades`);
      if (order.cummulativeQuoteQty !== sum.quote) problems.push(`${id} cummulativeQuoteQty differs`);
    }
  }
  return problems;
}

/** A fresh exchange per generated sequence: seeded books (or bare ones) and three funded traders. */
function baseExchange(liquidity: boolean): () => { ex: Exchange; clock: TestClock; history: MemoryHistory } {
  return () => {
    const clock = testClock();
    const history = new MemoryHistory();
    const ex = createExchange({ seed: 2024, now: clock.now, liquidity, history });
    for (const id of TRADERS) ex.addAccount(id, { USDT: "40000", BTC: "0.6", ETH: "12" });
    return { ex, clock, history };
  };
}

/** Random sequences of orders, cancels and clock ticks from several accounts. */
function checkRandomSequences(
  base: () => { ex: Exchange; clock: TestClock; history: MemoryHistory },
  flow: Flow,
  numRuns: number,
): void {
  fc.assert(
    fc.property(fc.array(command(flow), { minLength: 5, maxLength: 30, size: "max" }), (commands) => {
      const { ex, clock, history } = base();
      for (const c of commands) {
        run(ex, c, clock);
        expectBooksUncrossed(ex);
      }
      // Balances conserved (against the deposits), none negative, locks equal what open orders reserve.
      expect([...stateFaults(ex.internalState()), ...orderTradeMismatches(history)]).toEqual([]);
    }),
    { numRuns },
  );
}

describe("invariants under random order flow from several accounts", () => {
  test("on a seeded exchange (deep market-maker books)", () => {
    checkRandomSequences(baseExchange(true), { spreadBps: 120, symbols: SYMBOLS, types: ORDER_TYPES }, 200);
  });

  test("on a bare exchange (thin books, so prices move and stops fire often)", () => {
    const types: OrderType[] = [...ORDER_TYPES, "LIMIT", "LIMIT", "LIMIT", "LIMIT", "MARKET"];
    checkRandomSequences(baseExchange(false), { spreadBps: 25, symbols: ["BTCUSDT"], types }, 150);
  });
});
