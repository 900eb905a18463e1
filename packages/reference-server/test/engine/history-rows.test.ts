// The in-memory history keeps closed orders, trades and aggregate trades as compact rows and
// builds the objects again when read (src/engine/history-rows.ts). Here every read is asked of
// it and of a plain history of the engine's own objects, fed the same changes by the same
// exchange, after random sequences of orders, cancels and clock ticks: the answers must be equal.
import { describe, expect, test } from "vitest";
import { CROSSING_PAIRS } from "../../bench/order-load.js";
import {
  type AccountTradesQuery,
  ApiError,
  CANDLE_LEVELS,
  type Candle,
  type ChangeSet,
  candleOfTrade,
  createExchange,
  decimal as dec,
  type Exchange,
  type History,
  MemoryHistory,
  mergeCandle,
  type NewOrderParams,
  type Order,
  type PageQuery,
  type SymbolConfig,
  type Trade,
} from "../../src/engine/index.js";
import type { AggTrade } from "../../src/engine/types.js";
import { ordersChanged } from "../support/change-sets.js";
import { testClock } from "./support.js";

const ACCOUNTS = ["a", "b", "c"];
const SYMBOLS = ["BTCUSDT", "ETHUSDT"];
const HOUR = 3_600_000;

/** The engine's objects as they were handed over, each read answered by a walk over all of them. */
class ObjectHistory implements History {
  private orderList: Order[] = [];
  private readonly orderKeys = new Set<string>();
  private tradeList: Trade[] = [];
  private aggList: AggTrade[] = [];
  /** Every trade ever recorded: candles longer than a second outlive the trades' retention. */
  private everyTrade: Trade[] = [];
  private lastPrune = 0;

  constructor(private readonly retentionMs?: number) {}

  record(changes: ChangeSet, now: number): void {
    for (const order of changes.orders) {
      const key = `${order.symbol} ${order.orderId}`;
      if (this.orderKeys.has(key)) continue;
      this.orderKeys.add(key);
      this.orderList.push(order);
    }
    this.tradeList.push(...changes.trades);
    this.everyTrade.push(...changes.trades);
    for (const agg of changes.aggTrades) if (!this.aggList.includes(agg)) this.aggList.push(agg);
    if (this.retentionMs !== undefined && now - this.lastPrune >= 60_000) {
      this.lastPrune = now;
      const cutoff = now - this.retentionMs;
      this.tradeList = this.tradeList.filter((t) => t.time >= cutoff);
      this.aggList = this.aggList.filter((a) => a.time >= cutoff);
      this.orderList = this.orderList.filter((o) => isLive(o) || o.updateTime >= cutoff);
      // Second candles go with the trades, once their whole second is before the cutoff.
      this.forgottenSecondsBefore = cutoff - 999;
    }
  }

  order(symbol: string, orderId: number): Order | undefined {
    return this.orderList.find((o) => o.symbol === symbol && o.orderId === orderId);
  }

  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined {
    return this.accountOrders(accountId, symbol).findLast((o) => o.clientOrderId === clientOrderId);
  }

  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[] {
    const matching = this.accountOrders(accountId, symbol).filter((o) => inPage(query, o.orderId, o.time));
    return page(matching, query, limit);
  }

  trades(symbol: string, fromId: number | undefined, limit: number): Trade[] {
    const all = this.tradeList.filter((t) => t.symbol === symbol);
    return fromId === undefined ? all.slice(-limit) : all.filter((t) => t.id >= fromId).slice(0, limit);
  }

  tradesBetween(symbol: string, from: number, to: number): Trade[] {
    return this.tradeList.filter((t) => t.symbol === symbol && t.time >= from && t.time < to);
  }

  lastTradeBefore(symbol: string, time: number): Trade | undefined {
    return this.tradeList.findLast((t) => t.symbol === symbol && t.time < time);
  }

  aggTrades(symbol: string, query: PageQuery, limit: number): AggTrade[] {
    const matching = this.aggList.filter((a) => a.symbol === symbol && inPage(query, a.id, a.time));
    return page(matching, query, limit);
  }

  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[] {
    const parties = (t: Trade) => [t.buyer, t.seller];
    const matching = this.tradeList.filter(
      (t) =>
        t.symbol === symbol &&
        parties(t).some(
          (p) => p.accountId === accountId && (query.orderId === undefined || p.orderId === query.orderId),
        ) &&
        inPage(query, t.id, t.time),
    );
    return page(matching, query, limit);
  }

  private forgottenSecondsBefore = Number.NEGATIVE_INFINITY;

  /** Each candle folded from the trades, one by one, whatever the level. */
  candles(symbol: string, level: number, from: number, to: number): Candle[] {
    const byOpen = new Map<number, Candle>();
    for (const trade of this.everyTrade) {
      const open = Math.floor(trade.time / level) * level;
      if (trade.symbol !== symbol || open < from || open >= to) continue;
      if (level === 1000 && open < this.forgottenSecondsBefore) continue;
      const candle = byOpen.get(open);
      if (candle) mergeCandle(candle, candleOfTrade(trade, level));
      else byOpen.set(open, candleOfTrade(trade, level));
    }
    return [...byOpen.values()].sort((a, b) => a.openTime - b.openTime);
  }

  candleBefore(symbol: string, level: number, time: number): Candle | undefined {
    return this.candles(symbol, level, Number.MIN_SAFE_INTEGER, time).at(-1);
  }

  firstCandle(symbol: string, level: number): Candle | undefined {
    return this.candles(symbol, level, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)[0];
  }

  private accountOrders(accountId: string, symbol: string): Order[] {
    return this.orderList.filter((o) => o.accountId === accountId && o.symbol === symbol);
  }
}

function isLive(order: Order): boolean {
  return order.status === "NEW" || order.status === "PARTIALLY_FILLED";
}

function inPage(query: PageQuery, id: number, time: number): boolean {
  return (
    (query.fromId === undefined || id >= query.fromId) &&
    (query.startTime === undefined || time >= query.startTime) &&
    (query.endTime === undefined || time <= query.endTime)
  );
}

function page<T>(matching: T[], query: PageQuery, limit: number): T[] {
  const anchoredAtStart = query.fromId !== undefined || query.startTime !== undefined;
  return anchoredAtStart ? matching.slice(0, limit) : matching.slice(-limit);
}

/** Reads from the rows; every change goes to both histories. */
class BothHistories extends MemoryHistory {
  constructor(
    readonly plain: ObjectHistory,
    retentionMs?: number,
  ) {
    super(retentionMs);
  }

  override record(changes: ChangeSet, now: number): void {
    super.record(changes, now);
    this.plain.record(changes, now);
  }
}

/** A small deterministic generator (tests must be repeatable). */
function randomFrom(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * n);
  };
}

function filterValue(config: SymbolConfig, type: string, field: string): bigint {
  const filter = config.filters.find((f) => f.filterType === type) as unknown as Record<string, string>;
  return dec.parse(filter[field] ?? "0");
}

/** An order of a random kind near the symbol's last price. */
function randomOrder(ex: Exchange, symbol: string, pick: (n: number) => number): NewOrderParams {
  const config = ex.symbolConfig(symbol);
  const tick = filterValue(config, "PRICE_FILTER", "tickSize");
  const step = filterValue(config, "LOT_SIZE", "stepSize");
  const last = dec.parse(ex.tickerPrice(symbol).price);
  const reference = last > 0n ? last : dec.parse(config.referencePrice);
  const priceAt = (bps: number) =>
    dec.format(dec.floorToStep((reference * BigInt(10_000 + bps)) / 10_000n, tick), 8);
  const notional = filterValue(config, "NOTIONAL", "minNotional") * BigInt(1 + pick(40));
  const quantity = dec.format(dec.floorToStep(dec.div(notional, reference), step) + step, 8);
  const side = pick(2) === 0 ? "BUY" : "SELL";
  const base = { symbol, side, quantity } as const;
  const extra: Partial<NewOrderParams> = pick(4) === 0 ? { newClientOrderId: `mine-${pick(3)}` } : {};
  if (pick(8) === 0) extra.strategyId = 1 + pick(5);
  const kinds: (() => NewOrderParams)[] = [
    () => ({ ...base, type: "LIMIT", timeInForce: "GTC", price: priceAt(pick(41) - 20) }),
    () => ({ ...base, type: "LIMIT", timeInForce: pick(2) ? "IOC" : "FOK", price: priceAt(pick(41) - 20) }),
    () => ({ ...base, type: "MARKET" }),
    () => ({ symbol, side, type: "MARKET", quoteOrderQty: dec.format(notional, 8) }),
    () => ({
      ...base,
      type: "LIMIT",
      timeInForce: "GTC",
      price: priceAt(pick(21) - 10),
      icebergQty: quantity,
    }),
    () => ({ ...base, type: "LIMIT_MAKER", price: priceAt(side === "BUY" ? -30 : 30) }),
    () => {
      const rises = side === "BUY";
      const stop = priceAt(rises ? 5 + pick(10) : -5 - pick(10));
      return { ...base, type: "STOP_LOSS_LIMIT", timeInForce: "GTC", price: stop, stopPrice: stop };
    },
    () => ({ ...base, type: "STOP_LOSS", trailingDelta: 10 + pick(100) }),
  ];
  return { ...(kinds[pick(kinds.length)] as () => NewOrderParams)(), ...extra };
}

function runSequence(ex: Exchange, clock: { advance(ms: number): void }, seed: number, steps: number): void {
  const pick = randomFrom(seed);
  for (let step = 0; step < steps; step += 1) {
    const account = ACCOUNTS[pick(ACCOUNTS.length)] as string;
    const symbol = SYMBOLS[pick(SYMBOLS.length)] as string;
    try {
      const roll = pick(10);
      if (roll < 7) ex.newOrder(account, randomOrder(ex, symbol, pick));
      else if (roll < 9) cancelOne(ex, account, pick);
      else clock.advance(pick(3) === 0 ? 2 * HOUR : 1 + pick(90_000));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
}

function cancelOne(ex: Exchange, account: string, pick: (n: number) => number): void {
  const open = ex.openOrders(account);
  const victim = open[pick(Math.max(open.length, 1))];
  if (!victim) return;
  const byClientId = pick(2) === 0;
  ex.cancelOrder(account, {
    symbol: victim.symbol,
    ...(byClientId ? { origClientOrderId: victim.clientOrderId } : { orderId: victim.orderId }),
  });
}

/**
 * Every read of both histories, compared: orders, client order ids, pages, trades, aggTrades.
 * Random arguments are drawn before a read is asked of both.
 */
function expectSameReads(rows: History, plain: History, pick: (n: number) => number): void {
  const same = (read: (h: History) => unknown) => expect(read(rows)).toStrictEqual(read(plain));
  const limit = () => 1 + pick(6);
  for (const symbol of SYMBOLS) {
    const trades = plain.trades(symbol, undefined, 1e9);
    const times = [...trades.map((t) => t.time), 0, Number.MAX_SAFE_INTEGER];
    const time = () => times[pick(times.length)] as number;
    const queries = (ids: number[]): PageQuery[] => [
      {},
      { fromId: ids[pick(ids.length)] ?? 1 },
      { startTime: time() },
      { endTime: time() },
      { startTime: time(), endTime: time() },
      { fromId: ids[pick(ids.length)] ?? 1, endTime: time() },
    ];
    const orderIds = ACCOUNTS.flatMap((a) => plain.orders(a, symbol, {}, 1e9).map((o) => o.orderId));
    for (let id = 0; id <= Math.max(0, ...orderIds) + 1; id += 1) same((h) => h.order(symbol, id));
    for (const fromId of [undefined, ...trades.map((t) => t.id)]) {
      const n = limit();
      same((h) => h.trades(symbol, fromId, n));
    }
    for (let i = 0; i < 5; i += 1) {
      const [from, to, before] = [time(), time(), time()];
      same((h) => h.tradesBetween(symbol, from, to));
      same((h) => h.lastTradeBefore(symbol, before));
    }
    const aggIds = plain.aggTrades(symbol, {}, 1e9).map((a) => a.id);
    for (const query of queries(aggIds)) {
      const n = limit();
      same((h) => h.aggTrades(symbol, query, n));
    }
    for (const account of ACCOUNTS)
      expectSameAccountReads(same, account, symbol, plain, queries, limit, pick);
    for (const level of CANDLE_LEVELS) {
      same((h) => h.firstCandle(symbol, level));
      for (let i = 0; i < 3; i += 1) {
        const [from, to, before] = [time(), time(), time()];
        same((h) => h.candles(symbol, level, from, to));
        same((h) => h.candleBefore(symbol, level, before));
      }
    }
  }
}

function expectSameAccountReads(
  same: (read: (h: History) => unknown) => void,
  account: string,
  symbol: string,
  plain: History,
  queries: (ids: number[]) => PageQuery[],
  limit: () => number,
  pick: (n: number) => number,
): void {
  const orders = plain.orders(account, symbol, {}, 1e9);
  const orderIds = orders.map((o) => o.orderId);
  for (const { clientOrderId } of orders)
    same((h) => h.latestByClientOrderId(account, symbol, clientOrderId));
  for (const query of queries(orderIds)) {
    const n = limit();
    same((h) => h.orders(account, symbol, query, n));
  }
  const tradeIds = plain.accountTrades(account, symbol, {}, 1e9).map((t) => t.id);
  for (const query of queries(tradeIds)) {
    const [n, orderId] = [limit(), orderIds[pick(orderIds.length)]];
    same((h) => h.accountTrades(account, symbol, query, n));
    same((h) => h.accountTrades(account, symbol, { ...query, orderId }, n));
  }
}

/** The benches' crossing pairs at one price between accounts a and b (every pair trades), a second apart. */
function crossingPairs(ex: Exchange, clock: { advance(ms: number): void }, orders: number): void {
  const { bidPrice, askPrice } = ex.bookTicker("BTCUSDT");
  const price = ((Number(bidPrice) + Number(askPrice)) / 2).toFixed(2);
  for (let i = 0; i < orders; i += 1) {
    const [account, side] = CROSSING_PAIRS[i % CROSSING_PAIRS.length] as (typeof CROSSING_PAIRS)[number];
    ex.newOrder(account, {
      symbol: "BTCUSDT",
      side,
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: "0.001",
      price,
    });
    clock.advance(1000);
  }
}

describe("the history's rows answer every read as the engine's objects do", () => {
  test("over many chunks of rows, forgetting the oldest as time passes", () => {
    const clock = testClock();
    const history = new BothHistories(new ObjectHistory(HOUR), HOUR);
    const ex = createExchange({ seed: 4, now: clock.now, history, maxOpenOrdersPerAccount: 1e9 });
    for (const id of ACCOUNTS) ex.addAccount(id, { USDT: "2000000000", BTC: "300000" });
    const pick = randomFrom(11);
    for (let round = 0; round < 3; round += 1) {
      // 2 hours of orders a round, twice the retention: the rows of a whole round are forgotten.
      crossingPairs(ex, clock, 7200);
      expectSameReads(history, history.plain, pick);
    }
    // An hour of trades is held; those before it, more than two chunks of rows, are forgotten.
    const held = history.trades("BTCUSDT", undefined, 1e9);
    expect(held.length).toBeGreaterThan(1700);
    expect(held[0]?.id).toBeGreaterThan(2 * 2048);
    expect(history.orders("a", "BTCUSDT", {}, 1e9)[0]?.orderId).toBeGreaterThan(4 * 2048);
  });

  for (const [name, retentionMs] of [
    ["keeping everything", undefined],
    ["forgetting what is older than 3 hours", 3 * HOUR],
  ] as const) {
    for (const seed of [1, 2, 3]) {
      test(`${name}, sequence ${seed}`, () => {
        const clock = testClock();
        const history = new BothHistories(new ObjectHistory(retentionMs), retentionMs);
        const ex = createExchange({ seed, now: clock.now, history });
        for (const id of ACCOUNTS) ex.addAccount(id, { USDT: "2000000", BTC: "30", ETH: "500" });
        const pick = randomFrom(seed * 7919);
        for (let round = 0; round < 4; round += 1) {
          runSequence(ex, clock, seed * 100 + round, 150);
          expectSameReads(history, history.plain, pick);
        }
      });
    }
  }
});

describe("the history's rows hold what packs into one number", () => {
  const order = (orderId: number, accountId: string): Order => ({
    accountId,
    symbol: "BTCUSDT",
    orderId,
    clientOrderId: `c${orderId}`,
    side: "SELL",
    type: "LIMIT_MAKER",
    timeInForce: "GTC",
    price: 5n,
    origQty: 2n,
    origQuoteOrderQty: 0n,
    executedQty: 0n,
    cummulativeQuoteQty: 0n,
    stopPrice: 0n,
    icebergQty: 0n,
    trailing: undefined,
    status: "NEW",
    isWorking: true,
    time: orderId,
    updateTime: orderId,
    workingTime: orderId,
    strategyId: undefined,
    strategyType: undefined,
    locked: 0n,
    bookSeq: orderId,
  });

  test("the accounts past the 65,536th, recorded open and then closed, keep their orders", () => {
    const history = new MemoryHistory();
    const count = 70_000;
    const orders = Array.from({ length: count }, (_, i) => order(i + 1, `account-${i}`));
    for (const o of orders) history.record(ordersChanged([o]), 0);
    for (const o of orders) o.status = "CANCELED";
    for (const o of orders) history.record(ordersChanged([o]), 0);
    for (const id of [1, 65_536, 65_537, count]) {
      const { ...copy } = orders[id - 1] as Order;
      expect(history.order("BTCUSDT", id)).toStrictEqual(copy);
      expect(history.order("BTCUSDT", id)).not.toBe(orders[id - 1]);
      expect(history.orders(`account-${id - 1}`, "BTCUSDT", {}, 10).map((o) => o.orderId)).toEqual([id]);
    }
  });
});
