/**
 * Snapshots of a whole in-memory exchange, for the admin surface's snapshot, restore and reset:
 * the live state and its history (every order, trade and aggregate trade the history still holds),
 * read through the engine's `History` reads and written in the exchange document format the server
 * already imports (`importLegacySnapshot`), so a restore rebuilds books, statistics and ledger the
 * way an import does, with its checks.
 */
import * as dec from "../engine/decimal.js";
import { Exchange } from "../engine/exchange.js";
import { MemoryHistory } from "../engine/history.js";
import { stateFaults } from "../engine/invariants.js";
import {
  importLegacySnapshot,
  LEGACY_SNAPSHOT_FORMAT,
  type LegacySnapshot,
} from "../engine/legacy-snapshot.js";
import { type ExchangeState, initialState } from "../engine/state.js";
import type { AggTrade, Order, Trade, TradeParty } from "../engine/types.js";

/** Rows read from the history per call while a snapshot is taken. */
const PAGE = 5000;

/** The whole exchange as one document (history included). */
export function exportExchange(exchange: Exchange): LegacySnapshot {
  const state = exchange.internalState();
  return {
    format: LEGACY_SNAPSHOT_FORMAT,
    symbols: exchange.symbols().map((symbol) => exchange.symbolConfig(symbol)),
    commission: { maker: dec.toPlain(state.commission.maker), taker: dec.toPlain(state.commission.taker) },
    maxOpenOrdersPerAccount: state.maxOpenOrdersPerAccount,
    randomState: state.random.state,
    lastEventTime: state.lastEventTime,
    fees: Object.fromEntries([...state.ledger.fees].map(([asset, fee]) => [asset, dec.toPlain(fee)])),
    accounts: [...state.accounts.values()].map((account) => ({
      id: account.id,
      exemptFromOrderLimits: account.exemptFromOrderLimits,
      balances: Object.fromEntries(
        [...account.balances].map(([asset, b]) => [
          asset,
          { free: dec.toPlain(b.free), locked: dec.toPlain(b.locked) },
        ]),
      ),
    })),
    markets: [...state.markets.values()].map((market) => {
      const symbol = market.config.symbol;
      const orders: Record<string, unknown>[] = [];
      for (let id = 1; id < market.nextOrderId; id += 1) {
        const order = market.openOrders.get(id) ?? state.history.order(symbol, id);
        if (order) orders.push(orderJson(order));
      }
      return {
        symbol,
        nextOrderId: market.nextOrderId,
        nextTradeId: market.nextTradeId,
        nextAggTradeId: market.nextAggTradeId,
        nextBookSeq: market.nextBookSeq,
        lastUpdateId: market.lastUpdateId,
        orders,
        trades: pages((fromId) => state.history.trades(symbol, fromId, PAGE)).map(tradeJson),
        aggTrades: pages((fromId) => state.history.aggTrades(symbol, { fromId }, PAGE)).map(aggTradeJson),
      };
    }),
  };
}

/**
 * A new live state (in memory, with a history of its own) holding the snapshot; throws an Error
 * naming what is inconsistent. `retentionMs` is the history's retention, as the server's.
 */
export function importExchange(snapshot: LegacySnapshot, retentionMs?: number): ExchangeState {
  const history = new MemoryHistory(retentionMs);
  const state = initialState(
    { maxOpenOrdersPerAccount: snapshot.maxOpenOrdersPerAccount, commission: snapshot.commission, history },
    snapshot.symbols,
  );
  const changes = importLegacySnapshot(new Exchange(state), snapshot);
  const faults = stateFaults(state);
  if (faults.length > 0) throw new Error(`the snapshot is inconsistent: ${faults.join("; ")}`);
  history.record(changes, snapshot.lastEventTime);
  return state;
}

/** Every item a paged read gives from id 1 on. */
function pages<T extends { id: number }>(read: (fromId: number) => T[]): T[] {
  const items: T[] = [];
  let fromId = 1;
  for (;;) {
    const page = read(fromId);
    for (const item of page) items.push(item);
    const last = page.at(-1);
    if (page.length < PAGE || last === undefined) return items;
    fromId = last.id + 1;
  }
}

function orderJson(order: Order): Record<string, unknown> {
  const trailing = order.trailing;
  return {
    ...order,
    price: dec.toPlain(order.price),
    origQty: dec.toPlain(order.origQty),
    origQuoteOrderQty: dec.toPlain(order.origQuoteOrderQty),
    executedQty: dec.toPlain(order.executedQty),
    cummulativeQuoteQty: dec.toPlain(order.cummulativeQuoteQty),
    stopPrice: dec.toPlain(order.stopPrice),
    icebergQty: dec.toPlain(order.icebergQty),
    locked: dec.toPlain(order.locked),
    trailing: trailing
      ? {
          ...trailing,
          extreme: trailing.extreme === undefined ? null : dec.toPlain(trailing.extreme),
        }
      : null,
    strategyId: order.strategyId ?? null,
    strategyType: order.strategyType ?? null,
  };
}

function tradeJson(trade: Trade): Record<string, unknown> {
  const party = (p: TradeParty) => ({ ...p, commission: dec.toPlain(p.commission) });
  return {
    ...trade,
    price: dec.toPlain(trade.price),
    qty: dec.toPlain(trade.qty),
    quoteQty: dec.toPlain(trade.quoteQty),
    buyer: party(trade.buyer),
    seller: party(trade.seller),
  };
}

function aggTradeJson(agg: AggTrade): Record<string, unknown> {
  return { ...agg, price: dec.toPlain(agg.price), qty: dec.toPlain(agg.qty) } as unknown as Record<
    string,
    unknown
  >;
}
