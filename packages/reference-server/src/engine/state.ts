/**
 * The live state of an exchange (markets with their books and open orders, accounts, balances,
 * fees, counters) and the plain-JSON view of it. History (closed orders, trades) is not part of
 * it: that lives in the exchange's History.
 */
import { type Account, Ledger } from "./accounts.js";
import type { CommissionRates } from "./context.js";
import * as dec from "./decimal.js";
import { type History, MemoryHistory } from "./history.js";
import { Journal } from "./journal.js";
import { createMarket, type Market } from "./market.js";
import { Random } from "./random.js";
import type { SymbolConfig } from "./symbols.js";
import { isOpen, isStopType, type Order } from "./types.js";

export interface ExchangeState {
  readonly markets: Map<string, Market>;
  readonly accounts: Map<string, Account>;
  readonly ledger: Ledger;
  readonly random: Random;
  readonly commission: CommissionRates;
  readonly maxOpenOrdersPerAccount: number;
  readonly journal: Journal;
  readonly history: History;
  lastEventTime: number;
}

export interface StateOptions {
  seed?: number | undefined;
  maxOpenOrdersPerAccount?: number | undefined;
  commission?: { maker?: string | undefined; taker?: string | undefined } | undefined;
  history?: History | undefined;
}

export const DEFAULT_COMMISSION = "0.001";
export const DEFAULT_MAX_OPEN_ORDERS = 200;

export function initialState(options: StateOptions, symbols: readonly SymbolConfig[]): ExchangeState {
  const journal = new Journal();
  return {
    markets: new Map(symbols.map((config) => [config.symbol, createMarket(config)])),
    accounts: new Map(),
    ledger: new Ledger(journal),
    random: new Random((options.seed ?? 1) ^ 0x5eed),
    commission: {
      maker: dec.parse(options.commission?.maker ?? DEFAULT_COMMISSION),
      taker: dec.parse(options.commission?.taker ?? DEFAULT_COMMISSION),
    },
    maxOpenOrdersPerAccount: options.maxOpenOrdersPerAccount ?? DEFAULT_MAX_OPEN_ORDERS,
    journal,
    history: options.history ?? new MemoryHistory(),
    lastEventTime: 0,
  };
}

/**
 * Puts a restored open order back where the engine looks for it: its market, its account, the
 * book (call `restoreBook` once all are registered) or the stop queue.
 */
export function registerOpenOrder(state: ExchangeState, order: Order): void {
  const market = state.markets.get(order.symbol);
  if (!market) throw new Error(`order ${order.symbol}#${order.orderId}: no such symbol`);
  const account = state.accounts.get(order.accountId);
  if (!account) throw new Error(`order ${order.symbol}#${order.orderId}: no account "${order.accountId}"`);
  if (!isOpen(order)) return;
  market.openOrders.set(order.orderId, order);
  account.openOrders.set(order.clientOrderId, order);
  if (isStopType(order.type) && !order.isWorking) market.pendingStops.push(order);
}

/** Rebuilds every book from the registered open orders, in time priority. */
export function restoreBooks(state: ExchangeState): void {
  for (const market of state.markets.values()) {
    const resting = [...market.openOrders.values()].filter((o) => o.bookSeq > 0);
    resting.sort((a, b) => a.bookSeq - b.bookSeq);
    for (const order of resting) market.book.add(order);
    market.pendingStops.sort((a, b) => a.orderId - b.orderId);
  }
}

export interface LiveSnapshot {
  lastEventTime: number;
  randomState: number;
  fees: Record<string, string>;
  deposits: Record<string, string>;
  accounts: { id: string; balances: Record<string, { free: string; locked: string }> }[];
  markets: {
    symbol: string;
    counters: number[];
    lastTrade: number | null;
    openOrders: Record<string, unknown>[];
  }[];
}

const plainRecord = (map: ReadonlyMap<string, bigint>) =>
  Object.fromEntries([...map].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, dec.toPlain(v)]));

export function liveSnapshot(state: ExchangeState): LiveSnapshot {
  return {
    lastEventTime: state.lastEventTime,
    randomState: state.random.state,
    fees: plainRecord(state.ledger.fees),
    deposits: plainRecord(state.ledger.deposits),
    accounts: [...state.accounts.values()].map((account) => ({
      id: account.id,
      balances: Object.fromEntries(
        [...account.balances].map(([asset, b]) => [
          asset,
          { free: dec.toPlain(b.free), locked: dec.toPlain(b.locked) },
        ]),
      ),
    })),
    markets: [...state.markets.values()].map((m) => ({
      symbol: m.config.symbol,
      counters: [m.nextOrderId, m.nextTradeId, m.nextAggTradeId, m.nextBookSeq, m.lastUpdateId],
      lastTrade: m.lastTrade?.id ?? null,
      openOrders: [...m.openOrders.values()].map((order) => JSON.parse(plainJson(order))),
    })),
  };
}

function plainJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? dec.toPlain(v) : v));
}
