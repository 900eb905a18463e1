/**
 * The JSON state format of earlier versions ("marketapi-exchange/1" inside a
 * "marketapi-server-state/1" file): the whole exchange, history included, as one document.
 * It is only read, to import such a file once into the state database.
 */
import { Account } from "./accounts.js";
import * as dec from "./decimal.js";
import type { Exchange } from "./exchange.js";
import type { ChangeSet } from "./journal.js";
import { type ExchangeState, registerOpenOrder, restoreBooks } from "./state.js";
import type { SymbolConfig } from "./symbols.js";
import type { AggTrade, Order, Trade, TradeParty } from "./types.js";

export const LEGACY_SNAPSHOT_FORMAT = "marketapi-exchange/1";

export interface LegacySnapshot {
  format: typeof LEGACY_SNAPSHOT_FORMAT;
  symbols: SymbolConfig[];
  commission: { maker: string; taker: string };
  maxOpenOrdersPerAccount: number;
  randomState: number;
  lastEventTime: number;
  fees: Record<string, string>;
  accounts: {
    id: string;
    exemptFromOrderLimits: boolean;
    balances: Record<string, { free: string; locked: string }>;
  }[];
  markets: LegacyMarket[];
}

interface LegacyMarket {
  symbol: string;
  nextOrderId: number;
  nextTradeId: number;
  nextAggTradeId: number;
  nextBookSeq: number;
  lastUpdateId: number;
  orders: Record<string, unknown>[];
  trades: Record<string, unknown>[];
  aggTrades: Record<string, unknown>[];
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

const exact = dec.fromPlain;

/** The settings a legacy snapshot fixes for the exchange built from it. */
export function legacySettings(snapshot: LegacySnapshot) {
  return {
    symbols: snapshot.symbols,
    commission: snapshot.commission,
    maxOpenOrdersPerAccount: snapshot.maxOpenOrdersPerAccount,
  };
}

/**
 * Loads a legacy snapshot into `exchange` (created empty, with the snapshot's settings) and returns
 * everything as one change set for its history. Deposits are taken to be the balances and fees it
 * holds (the old format kept no record of them). Throws an Error naming what is malformed.
 */
export function importLegacySnapshot(exchange: Exchange, snapshot: LegacySnapshot): ChangeSet {
  const state = exchange.internalState();
  state.random.state = snapshot.randomState;
  state.lastEventTime = snapshot.lastEventTime;
  const accounts = snapshot.accounts.map((a) => restoreAccount(state, a));
  for (const [asset, fee] of Object.entries(snapshot.fees)) state.ledger.fees.set(asset, exact(fee));
  const changes = { orders: [] as Order[], trades: [] as Trade[], aggTrades: [] as AggTrade[] };
  for (const m of snapshot.markets) restoreMarket(state, m, changes);
  restoreBooks(state);
  const assets = depositsFromTotals(state);
  return {
    ...changes,
    balances: accounts.flatMap((account) =>
      [...account.balances.keys()].map((asset) => ({ account, asset })),
    ),
    fees: [...state.ledger.fees.keys()],
    deposits: assets,
    accounts,
    markets: [...state.markets.values()],
  };
}

function restoreAccount(state: ExchangeState, snapshot: LegacySnapshot["accounts"][number]): Account {
  if (state.accounts.has(snapshot.id)) throw new Error(`account "${snapshot.id}" is listed twice`);
  const account = new Account(snapshot.id, { exemptFromOrderLimits: snapshot.exemptFromOrderLimits });
  for (const [asset, b] of Object.entries(snapshot.balances)) {
    account.balances.set(asset, { free: exact(b.free), locked: exact(b.locked) });
  }
  state.accounts.set(account.id, account);
  return account;
}

function restoreMarket(
  state: ExchangeState,
  snapshot: LegacyMarket,
  out: { orders: Order[]; trades: Trade[]; aggTrades: AggTrade[] },
): void {
  const market = state.markets.get(snapshot.symbol);
  if (!market) throw new Error(`market ${snapshot.symbol} has no symbol configuration`);
  Object.assign(market, {
    nextOrderId: snapshot.nextOrderId,
    nextTradeId: snapshot.nextTradeId,
    nextAggTradeId: snapshot.nextAggTradeId,
    nextBookSeq: snapshot.nextBookSeq,
    lastUpdateId: snapshot.lastUpdateId,
  });
  const symbol = snapshot.symbol;
  const orderIds = new Set<number>();
  for (const raw of snapshot.orders) {
    const order = orderFromJSON(raw);
    if (orderIds.has(order.orderId)) throw new Error(`order ${symbol}#${order.orderId} is listed twice`);
    orderIds.add(order.orderId);
    registerOpenOrder(state, order);
    out.orders.push(order);
  }
  let previous: Trade | undefined;
  for (const raw of snapshot.trades) {
    const trade = tradeFromJSON(symbol, raw);
    if (previous && trade.id <= previous.id)
      throw new Error(`trade ${symbol}#${trade.id} follows trade #${previous.id}: ids must increase`);
    market.stats.add(trade);
    out.trades.push(trade);
    previous = trade;
  }
  market.lastTrade = previous;
  for (const raw of snapshot.aggTrades) {
    const agg = { ...raw, symbol, price: exact(String(raw.price)), qty: exact(String(raw.qty)) } as AggTrade;
    out.aggTrades.push(agg);
  }
  market.lastAggTrade = out.aggTrades.at(-1);
  if (market.lastAggTrade?.symbol !== symbol) market.lastAggTrade = undefined;
}

function orderFromJSON(raw: Record<string, unknown>): Order {
  const decimals = Object.fromEntries(ORDER_DECIMALS.map((key) => [key, exact(String(raw[key]))]));
  const trailing = raw.trailing as { delta: number; activeSince: number; extreme: string | null } | null;
  return {
    ...(raw as unknown as Order),
    ...decimals,
    trailing: trailing
      ? { ...trailing, extreme: trailing.extreme === null ? undefined : exact(trailing.extreme) }
      : undefined,
    strategyId: (raw.strategyId as number | null) ?? undefined,
    strategyType: (raw.strategyType as number | null) ?? undefined,
  };
}

function tradeFromJSON(symbol: string, raw: Record<string, unknown>): Trade {
  const party = (p: Record<string, unknown>): TradeParty => ({
    ...(p as unknown as TradeParty),
    commission: exact(String(p.commission)),
  });
  return {
    ...(raw as unknown as Trade),
    symbol,
    price: exact(String(raw.price)),
    qty: exact(String(raw.qty)),
    quoteQty: exact(String(raw.quoteQty)),
    buyer: party(raw.buyer as Record<string, unknown>),
    seller: party(raw.seller as Record<string, unknown>),
  };
}

function depositsFromTotals(state: ExchangeState): string[] {
  const totals = new Map(state.ledger.fees);
  for (const account of state.accounts.values()) {
    for (const [asset, b] of account.balances)
      totals.set(asset, (totals.get(asset) ?? 0n) + b.free + b.locked);
  }
  for (const [asset, total] of totals) state.ledger.deposits.set(asset, total);
  return [...totals.keys()];
}
