import { Account, Ledger } from "./accounts.js";
import * as dec from "./decimal.js";
import type { ExchangeState } from "./exchange.js";
import { createMarket, type Market } from "./market.js";
import { Random } from "./random.js";
import type { SymbolConfig } from "./symbols.js";
import { type AggTrade, isOpen, isStopType, type Order, type Trade, type TradeParty } from "./types.js";

/**
 * The persisted form of an exchange: plain JSON, decimals as exact strings, absent values as
 * null. Books, open-order sets and stop queues are derived from the orders on restore.
 */
export interface ExchangeSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  symbols: SymbolConfig[];
  commission: { maker: string; taker: string };
  maxOpenOrdersPerAccount: number;
  randomState: number;
  lastEventTime: number;
  fees: Record<string, string>;
  accounts: AccountSnapshot[];
  markets: MarketSnapshot[];
}

export interface AccountSnapshot {
  id: string;
  exemptFromOrderLimits: boolean;
  balances: Record<string, { free: string; locked: string }>;
}

export interface MarketSnapshot {
  symbol: string;
  nextOrderId: number;
  nextTradeId: number;
  nextAggTradeId: number;
  nextBookSeq: number;
  lastUpdateId: number;
  orders: OrderSnapshot[];
  trades: TradeSnapshot[];
  aggTrades: AggTradeSnapshot[];
}

const ORDER_DECIMALS = [
  "price",
  "origQty",
  "origQuoteOrderQty",
  "executedQty",
  "cummulativeQuoteQty",
  "stopPrice",
  "icebergQty",
  "locked",
] as const;
type OrderDecimal = (typeof ORDER_DECIMALS)[number];

export type OrderSnapshot = Omit<Order, OrderDecimal | "trailing" | "strategyId" | "strategyType"> &
  Record<OrderDecimal, string> & {
    trailing: { delta: number; activeSince: number; extreme: string | null } | null;
    strategyId: number | null;
    strategyType: number | null;
  };

type PartySnapshot = Omit<TradeParty, "commission"> & { commission: string };
export type TradeSnapshot = Omit<Trade, "price" | "qty" | "quoteQty" | "buyer" | "seller"> & {
  price: string;
  qty: string;
  quoteQty: string;
  buyer: PartySnapshot;
  seller: PartySnapshot;
};
export type AggTradeSnapshot = Omit<AggTrade, "price" | "qty"> & { price: string; qty: string };

export const SNAPSHOT_FORMAT = "marketapi-exchange/1";

const plain = dec.toPlain;
const exact = dec.fromPlain;

export function snapshotState(state: ExchangeState): ExchangeSnapshot {
  const markets = [...state.markets.values()];
  return {
    format: SNAPSHOT_FORMAT,
    symbols: markets.map((m) => structuredClone(m.config)),
    commission: { maker: plain(state.commission.maker), taker: plain(state.commission.taker) },
    maxOpenOrdersPerAccount: state.maxOpenOrdersPerAccount,
    randomState: state.random.state,
    lastEventTime: state.lastEventTime,
    fees: Object.fromEntries([...state.ledger.fees].map(([asset, fee]) => [asset, plain(fee)])),
    accounts: [...state.accounts.values()].map(accountToJSON),
    markets: markets.map(marketToJSON),
  };
}

function accountToJSON(account: Account): AccountSnapshot {
  const balances = [...account.balances].map(([asset, b]) => [
    asset,
    { free: plain(b.free), locked: plain(b.locked) },
  ]);
  return {
    id: account.id,
    exemptFromOrderLimits: account.exemptFromOrderLimits,
    balances: Object.fromEntries(balances),
  };
}

function marketToJSON(market: Market): MarketSnapshot {
  return {
    symbol: market.config.symbol,
    nextOrderId: market.nextOrderId,
    nextTradeId: market.nextTradeId,
    nextAggTradeId: market.nextAggTradeId,
    nextBookSeq: market.nextBookSeq,
    lastUpdateId: market.lastUpdateId,
    orders: [...market.orders.values()].map(orderToJSON),
    trades: market.trades.map(tradeToJSON),
    aggTrades: market.aggTrades.map((a) => ({ ...a, price: plain(a.price), qty: plain(a.qty) })),
  };
}

function orderToJSON(order: Order): OrderSnapshot {
  const decimals = Object.fromEntries(ORDER_DECIMALS.map((key) => [key, plain(order[key])])) as Record<
    OrderDecimal,
    string
  >;
  const trailing = order.trailing;
  return {
    ...order,
    ...decimals,
    trailing: trailing
      ? { ...trailing, extreme: trailing.extreme === undefined ? null : plain(trailing.extreme) }
      : null,
    strategyId: order.strategyId ?? null,
    strategyType: order.strategyType ?? null,
  };
}

function tradeToJSON(trade: Trade): TradeSnapshot {
  const party = (p: TradeParty): PartySnapshot => ({ ...p, commission: plain(p.commission) });
  return {
    ...trade,
    price: plain(trade.price),
    qty: plain(trade.qty),
    quoteQty: plain(trade.quoteQty),
    buyer: party(trade.buyer),
    seller: party(trade.seller),
  };
}

export function restoreState(snapshot: ExchangeSnapshot): ExchangeState {
  if (snapshot.format !== SNAPSHOT_FORMAT)
    throw new Error(`Unknown exchange snapshot format: ${snapshot.format}`);
  const random = new Random(0);
  random.state = snapshot.randomState;
  const state: ExchangeState = {
    markets: new Map(snapshot.symbols.map((config) => [config.symbol, createMarket(config)])),
    accounts: new Map(snapshot.accounts.map((a) => [a.id, accountFromJSON(a)])),
    ledger: new Ledger(),
    random,
    commission: { maker: exact(snapshot.commission.maker), taker: exact(snapshot.commission.taker) },
    maxOpenOrdersPerAccount: snapshot.maxOpenOrdersPerAccount,
    lastEventTime: snapshot.lastEventTime,
  };
  for (const [asset, fee] of Object.entries(snapshot.fees)) state.ledger.fees.set(asset, exact(fee));
  for (const m of snapshot.markets) restoreMarket(state, m);
  return state;
}

function accountFromJSON(snapshot: AccountSnapshot): Account {
  const account = new Account(snapshot.id, { exemptFromOrderLimits: snapshot.exemptFromOrderLimits });
  for (const [asset, b] of Object.entries(snapshot.balances)) {
    account.balances.set(asset, { free: exact(b.free), locked: exact(b.locked) });
  }
  return account;
}

function restoreMarket(state: ExchangeState, snapshot: MarketSnapshot): void {
  const market = state.markets.get(snapshot.symbol);
  if (!market) throw new Error(`Snapshot market ${snapshot.symbol} has no symbol config`);
  Object.assign(market, {
    nextOrderId: snapshot.nextOrderId,
    nextTradeId: snapshot.nextTradeId,
    nextAggTradeId: snapshot.nextAggTradeId,
    nextBookSeq: snapshot.nextBookSeq,
    lastUpdateId: snapshot.lastUpdateId,
  });
  market.trades.push(...snapshot.trades.map(tradeFromJSON));
  market.aggTrades.push(
    ...snapshot.aggTrades.map((a) => ({ ...a, price: exact(a.price), qty: exact(a.qty) })),
  );
  const orders = snapshot.orders.map(orderFromJSON);
  for (const order of orders) registerOrder(state, market, order);
  const resting = orders.filter((o) => isOpen(o) && o.bookSeq > 0).sort((a, b) => a.bookSeq - b.bookSeq);
  for (const order of resting) market.book.add(order);
}

function registerOrder(state: ExchangeState, market: Market, order: Order): void {
  const account = state.accounts.get(order.accountId);
  if (!account) throw new Error(`Snapshot order ${order.symbol}#${order.orderId} has no account`);
  market.orders.set(order.orderId, order);
  account.ordersOn(order.symbol).push(order);
  if (!isOpen(order)) return;
  account.openOrders.set(order.clientOrderId, order);
  if (isStopType(order.type) && !order.isWorking) market.pendingStops.push(order);
}

function orderFromJSON(snapshot: OrderSnapshot): Order {
  const decimals = Object.fromEntries(ORDER_DECIMALS.map((key) => [key, exact(snapshot[key])])) as Record<
    OrderDecimal,
    bigint
  >;
  const trailing = snapshot.trailing;
  return {
    ...snapshot,
    ...decimals,
    trailing: trailing
      ? { ...trailing, extreme: trailing.extreme === null ? undefined : exact(trailing.extreme) }
      : undefined,
    strategyId: snapshot.strategyId ?? undefined,
    strategyType: snapshot.strategyType ?? undefined,
  };
}

function tradeFromJSON(snapshot: TradeSnapshot): Trade {
  const party = (p: PartySnapshot): TradeParty => ({ ...p, commission: exact(p.commission) });
  return {
    ...snapshot,
    price: exact(snapshot.price),
    qty: exact(snapshot.qty),
    quoteQty: exact(snapshot.quoteQty),
    buyer: party(snapshot.buyer),
    seller: party(snapshot.seller),
  };
}
