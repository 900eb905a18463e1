/**
 * Rows of the state database: how engine objects become statement parameters (writes) and how
 * rows become engine objects again (reads). Decimals travel as exact text.
 */
import {
  type AggTrade,
  type Candle,
  type ChangeSet,
  decimal as dec,
  type Order,
  type Trade,
  type TradeBucket,
} from "../engine/index.js";
import { ORDER_STATUSES, ORDER_TYPES, SIDES, TIME_IN_FORCE } from "../engine/types.js";
import { Columns } from "./row-checks.js";

/**
 * The write statements, by name; a write operation is [name, ...parameters]. A statement on a
 * symbol's own tables names them with placeholders (`{orders}`, see schema.ts), and its first
 * parameter is a key of that symbol, which says whose tables.
 */
export const WRITES = {
  meta: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  symbol: "INSERT INTO symbols (symbol, position, config) VALUES (?, ?, ?)",
  // Written by every commit that changes a symbol: a row of a few bytes, apart from the config.
  counters: `INSERT INTO symbol_counters (symbol, next_order_id, next_trade_id, next_agg_trade_id,
      next_book_seq, last_update_id) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (symbol) DO UPDATE SET next_order_id = excluded.next_order_id,
      next_trade_id = excluded.next_trade_id, next_agg_trade_id = excluded.next_agg_trade_id,
      next_book_seq = excluded.next_book_seq, last_update_id = excluded.last_update_id`,
  account: "INSERT INTO accounts (id, position, exempt_from_order_limits) VALUES (?, ?, ?)",
  balance: `INSERT INTO balances (account, asset, free, locked, update_time) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (account, asset) DO UPDATE SET free = excluded.free, locked = excluded.locked,
      update_time = excluded.update_time`,
  deposit:
    "INSERT INTO deposits (asset, total) VALUES (?, ?) ON CONFLICT (asset) DO UPDATE SET total = excluded.total",
  fee: "INSERT INTO fees (asset, total) VALUES (?, ?) ON CONFLICT (asset) DO UPDATE SET total = excluded.total",
  // An order is inserted once and then updated in place: the columns of orders_open's entries
  // aside, no indexed column is assigned, so SQLite leaves the indexes alone on every later change (INSERT OR REPLACE deleted and rewrote the row and all of its index
  // entries).
  order: `INSERT INTO {orders} (key, symbol, order_id, account, client_order_id, side, type, time_in_force,
      price, orig_qty, orig_quote_order_qty, executed_qty, cummulative_quote_qty, stop_price, iceberg_qty,
      trailing, status, is_working, time, update_time, working_time, strategy_id, strategy_type, locked, book_seq)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET side = excluded.side, type = excluded.type,
      time_in_force = excluded.time_in_force, price = excluded.price, orig_qty = excluded.orig_qty,
      orig_quote_order_qty = excluded.orig_quote_order_qty, executed_qty = excluded.executed_qty,
      cummulative_quote_qty = excluded.cummulative_quote_qty, stop_price = excluded.stop_price,
      iceberg_qty = excluded.iceberg_qty, trailing = excluded.trailing, status = excluded.status,
      is_working = excluded.is_working, update_time = excluded.update_time, working_time =
      excluded.working_time, strategy_id = excluded.strategy_id, strategy_type = excluded.strategy_type,
      locked = excluded.locked, book_seq = excluded.book_seq`,
  trade: `INSERT INTO {trades} (key, symbol, id, price, qty, quote_qty, time, is_buyer_maker, buyer, buyer_order_id,
      buyer_commission, buyer_commission_asset, seller, seller_order_id, seller_commission, seller_commission_asset)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  aggTrade: `INSERT INTO {aggTrades} (key, symbol, id, price, qty, first_trade_id, last_trade_id, time,
      is_buyer_maker, taker_order_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET qty = excluded.qty, last_trade_id = excluded.last_trade_id`,
  minute: `INSERT INTO trade_minutes (symbol, minute, first_id, last_id, count, open, high, low, close,
      close_qty, volume, quote_volume) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (symbol, minute) DO UPDATE SET last_id = excluded.last_id, count = excluded.count,
      high = excluded.high, low = excluded.low, close = excluded.close, close_qty = excluded.close_qty,
      volume = excluded.volume, quote_volume = excluded.quote_volume`,
  pruneMinutes: "DELETE FROM trade_minutes WHERE minute < ?",
  // (symbol, level, open_time, ...): the latest candle of a level, written again as trades fold in
  candle: `INSERT INTO candles (symbol, level, open_time, first_id, last_id, count, open, high, low, close,
      volume, quote_volume, taker_buy_volume, taker_buy_quote_volume) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (symbol, level, open_time) DO UPDATE SET last_id = excluded.last_id, count = excluded.count,
      high = excluded.high, low = excluded.low, close = excluded.close, volume = excluded.volume,
      quote_volume = excluded.quote_volume, taker_buy_volume = excluded.taker_buy_volume,
      taker_buy_quote_volume = excluded.taker_buy_quote_volume`,
  // (symbol, level, first open time kept): retention forgets the candles of the level it prunes
  pruneCandles: "DELETE FROM candles WHERE symbol = ? AND level = ? AND open_time < ?",
  // (account, key): a trade under one of its accounts
  accountTrade: "INSERT INTO account_trades (account, key) VALUES (?, ?) ON CONFLICT DO NOTHING",
  // (from key, below key): one sorted chunk of client order ids, then the mark (below order id,
  // symbol) that says they are in. A generated id names its order and needs no row (client-ids.ts).
  indexClientIds: `INSERT OR IGNORE INTO client_order_ids (account, symbol, client_order_id, order_id)
    SELECT account, symbol, client_order_id, order_id FROM {orders} WHERE key >= ? AND key < ?
    AND NOT names_its_order(client_order_id, order_id) ORDER BY account, client_order_id, order_id`,
  indexAccountOrders: `INSERT OR IGNORE INTO account_orders (account, key)
    SELECT account, key FROM {orders} WHERE key >= ? AND key < ? ORDER BY account, key`,
  clientIdsBelow: "UPDATE symbols SET client_ids_below = ? WHERE symbol = ?",
  // (symbol's first key, first key to keep, most rows): ids and times grow together, so the rows
  // older than the retention are those below the first id at or after its cutoff.
  // The entries in account_trades of the trades that pruneTrades, with the same parameters, deletes next.
  pruneBuyerTrades: `DELETE FROM account_trades WHERE (account, key) IN
    (SELECT buyer, key FROM {trades} WHERE key >= ? AND key < ? ORDER BY key LIMIT ?)`,
  pruneSellerTrades: `DELETE FROM account_trades WHERE (account, key) IN
    (SELECT seller, key FROM {trades} WHERE key >= ? AND key < ? ORDER BY key LIMIT ?)`,
  pruneTrades: `DELETE FROM {trades} WHERE key IN
    (SELECT key FROM {trades} WHERE key >= ? AND key < ? ORDER BY key LIMIT ?)`,
  pruneAggTrades: `DELETE FROM {aggTrades} WHERE key IN
    (SELECT key FROM {aggTrades} WHERE key >= ? AND key < ? ORDER BY key LIMIT ?)`,
  // The client order ids of the orders that pruneOrders, with the same parameters, deletes next.
  pruneClientIds: `DELETE FROM client_order_ids WHERE (account, symbol, client_order_id, order_id) IN
    (SELECT account, symbol, client_order_id, order_id FROM {orders} WHERE key >= ? AND key < ?
    AND status NOT IN ('NEW', 'PARTIALLY_FILLED') ORDER BY key LIMIT ?)`,
  // Likewise the orders' entries in account_orders.
  pruneAccountOrders: `DELETE FROM account_orders WHERE (account, key) IN
    (SELECT account, key FROM {orders} WHERE key >= ? AND key < ?
    AND status NOT IN ('NEW', 'PARTIALLY_FILLED') ORDER BY key LIMIT ?)`,
  pruneOrders: `DELETE FROM {orders} WHERE key IN (SELECT key FROM {orders}
    WHERE key >= ? AND key < ? AND status NOT IN ('NEW', 'PARTIALLY_FILLED') ORDER BY key LIMIT ?)`,
} as const;

export type WriteName = keyof typeof WRITES;

/**
 * Ids of a symbol's orders, trades and aggregate trades are below this (a trillion: 3 years at
 * 10,000 a second), so that keys are distinct and below 2^53 for 8,192 symbols.
 */
export const ID_SPAN = 2 ** 40;

/**
 * The key of a symbol's order, trade or aggregate trade: its position × 2^40 + the id, so that a
 * symbol's rows are one range of keys in id order. Ids beyond the span are clamped (bounds only).
 */
export function rowKey(position: number, id: number): number {
  return position * ID_SPAN + Math.min(Math.max(id, 0), ID_SPAN);
}

/** The position of the symbol a key belongs to (the lowest key of a range, or one row's key). */
export function keyPosition(key: number): number {
  return Math.floor(key / ID_SPAN);
}
export type Param = string | number | bigint | null;
export type WriteOp = [WriteName, ...Param[]];

/** Texts of values written lately, by value: cleared when full, so it stays bounded. */
const recentPlain = new Map<dec.Decimal, string>();
const RECENT_PLAIN_MOST = 4096;

/**
 * A decimal as exact text (decimal.toPlain). Most values a commit writes were written moments ago
 * (a price, a quantity, zero, a commission), and a lookup costs a tenth of formatting a bigint.
 */
function plain(value: dec.Decimal): string {
  let text = recentPlain.get(value);
  if (text === undefined) {
    if (recentPlain.size >= RECENT_PLAIN_MOST) recentPlain.clear();
    text = dec.toPlain(value);
    recentPlain.set(value, text);
  }
  return text;
}

/** The write of an order (its key given), parameters in the order of WRITES.order. */
export function orderOp(key: number, o: Order): WriteOp {
  const trailing = o.trailing
    ? JSON.stringify({
        delta: o.trailing.delta,
        activeSince: o.trailing.activeSince,
        extreme: o.trailing.extreme === undefined ? null : plain(o.trailing.extreme),
      })
    : null;
  return [
    "order",
    key,
    o.symbol,
    o.orderId,
    o.accountId,
    o.clientOrderId,
    o.side,
    o.type,
    o.timeInForce,
    plain(o.price),
    plain(o.origQty),
    plain(o.origQuoteOrderQty),
    plain(o.executedQty),
    plain(o.cummulativeQuoteQty),
    plain(o.stopPrice),
    plain(o.icebergQty),
    trailing,
    o.status,
    o.isWorking ? 1 : 0,
    o.time,
    o.updateTime,
    o.workingTime,
    o.strategyId ?? null,
    o.strategyType ?? null,
    plain(o.locked),
    o.bookSeq,
  ];
}

export interface OrderRow {
  key: number;
  symbol: string;
  order_id: number;
  account: string;
  client_order_id: string;
  side: string;
  type: string;
  time_in_force: string;
  price: string;
  orig_qty: string;
  orig_quote_order_qty: string;
  executed_qty: string;
  cummulative_quote_qty: string;
  stop_price: string;
  iceberg_qty: string;
  trailing: string | null;
  status: string;
  is_working: number;
  time: number;
  update_time: number;
  working_time: number;
  strategy_id: number | null;
  strategy_type: number | null;
  locked: string;
  book_seq: number;
}

/**
 * The columns of a row of a symbol's own table (`orders`, `trades`, `agg_trades`), checked as they
 * are read (row-checks.ts); its key must be the one of its id.
 */
function symbolRow(r: { key: number } & object, table: string, what: string, idColumn: string): Columns {
  const row = r as Record<string, unknown>;
  const key = row.key;
  const position =
    typeof key === "number" && Number.isSafeInteger(key) && key >= 0 ? keyPosition(key) : undefined;
  const columns = new Columns(row, () =>
    position === undefined
      ? `table ${table}_?, key ${String(key)}`
      : `table ${table}_${position}, ${what} ${String(row[idColumn])}`,
  );
  const id = columns.id(idColumn);
  if (position === undefined || key !== rowKey(position, id))
    columns.refuse("key", `the key of ${what} ${id} (its symbol's position × 2^40 + the id)`);
  return columns;
}

export function orderFromRow(r: OrderRow): Order {
  const c = symbolRow(r, "orders", "order", "order_id");
  return {
    accountId: c.account("account"),
    symbol: c.symbol("symbol"),
    orderId: c.id("order_id"),
    clientOrderId: c.clientOrderId("client_order_id"),
    side: c.oneOf("side", SIDES),
    type: c.oneOf("type", ORDER_TYPES),
    timeInForce: c.oneOf("time_in_force", TIME_IN_FORCE),
    price: c.decimal("price"),
    origQty: c.decimal("orig_qty"),
    origQuoteOrderQty: c.decimal("orig_quote_order_qty"),
    executedQty: c.decimal("executed_qty"),
    cummulativeQuoteQty: c.decimal("cummulative_quote_qty"),
    stopPrice: c.decimal("stop_price"),
    icebergQty: c.decimal("iceberg_qty"),
    trailing: r.trailing === null ? undefined : trailingOf(r.trailing, c),
    status: c.oneOf("status", ORDER_STATUSES),
    isWorking: c.flag("is_working"),
    time: c.time("time"),
    updateTime: c.time("update_time"),
    workingTime: c.timeOrNone("working_time"),
    strategyId: c.optionalWhole("strategy_id"),
    strategyType: c.optionalWhole("strategy_type"),
    locked: c.decimal("locked"),
    bookSeq: c.whole("book_seq"),
  };
}

/** A trailing stop's bookkeeping, as orderOp writes it (JSON). */
function trailingOf(text: unknown, c: Columns): Order["trailing"] {
  let value: unknown;
  try {
    value = typeof text === "string" && text.length <= 200 ? JSON.parse(text) : undefined;
  } catch {
    value = undefined;
  }
  const t = value as { delta?: unknown; activeSince?: unknown; extreme?: unknown } | undefined;
  const extreme = typeof t?.extreme === "string" ? dec.tryParse(t.extreme) : undefined;
  if (
    typeof t !== "object" ||
    t === null ||
    !Number.isInteger(t.delta) ||
    !Number.isInteger(t.activeSince) ||
    (t.extreme !== null && extreme === undefined)
  )
    return c.refuse("trailing", "JSON of a trailing stop ({delta, activeSince, extreme})");
  return { delta: t.delta as number, activeSince: t.activeSince as number, extreme };
}

/** The write of a trade (its key given), parameters in the order of WRITES.trade. */
export function tradeOp(key: number, t: Trade): WriteOp {
  return [
    "trade",
    key,
    t.symbol,
    t.id,
    plain(t.price),
    plain(t.qty),
    plain(t.quoteQty),
    t.time,
    t.isBuyerMaker ? 1 : 0,
    t.buyer.accountId,
    t.buyer.orderId,
    plain(t.buyer.commission),
    t.buyer.commissionAsset,
    t.seller.accountId,
    t.seller.orderId,
    plain(t.seller.commission),
    t.seller.commissionAsset,
  ];
}

export interface TradeRow {
  key: number;
  symbol: string;
  id: number;
  price: string;
  qty: string;
  quote_qty: string;
  time: number;
  is_buyer_maker: number;
  buyer: string;
  buyer_order_id: number;
  buyer_commission: string;
  buyer_commission_asset: string;
  seller: string;
  seller_order_id: number;
  seller_commission: string;
  seller_commission_asset: string;
}

export function tradeFromRow(r: TradeRow): Trade {
  const c = symbolRow(r, "trades", "trade", "id");
  return {
    symbol: c.symbol("symbol"),
    id: c.id("id"),
    price: c.decimal("price"),
    qty: c.decimal("qty"),
    quoteQty: c.decimal("quote_qty"),
    time: c.time("time"),
    isBuyerMaker: c.flag("is_buyer_maker"),
    buyer: {
      accountId: c.account("buyer"),
      orderId: c.id("buyer_order_id"),
      commission: c.decimal("buyer_commission"),
      commissionAsset: c.asset("buyer_commission_asset"),
    },
    seller: {
      accountId: c.account("seller"),
      orderId: c.id("seller_order_id"),
      commission: c.decimal("seller_commission"),
      commissionAsset: c.asset("seller_commission_asset"),
    },
  };
}

/** The write of an aggregate trade (its key given), parameters in the order of WRITES.aggTrade. */
export function aggTradeOp(key: number, a: AggTrade): WriteOp {
  return [
    "aggTrade",
    key,
    a.symbol,
    a.id,
    plain(a.price),
    plain(a.qty),
    a.firstTradeId,
    a.lastTradeId,
    a.time,
    a.isBuyerMaker ? 1 : 0,
    a.takerOrderId,
  ];
}

export interface AggTradeRow {
  key: number;
  symbol: string;
  id: number;
  price: string;
  qty: string;
  first_trade_id: number;
  last_trade_id: number;
  time: number;
  is_buyer_maker: number;
  taker_order_id: number;
}

export function aggTradeFromRow(r: AggTradeRow): AggTrade {
  const c = symbolRow(r, "agg_trades", "aggregate trade", "id");
  return {
    symbol: c.symbol("symbol"),
    id: c.id("id"),
    price: c.decimal("price"),
    qty: c.decimal("qty"),
    firstTradeId: c.id("first_trade_id"),
    lastTradeId: c.id("last_trade_id"),
    time: c.time("time"),
    isBuyerMaker: c.flag("is_buyer_maker"),
    takerOrderId: c.id("taker_order_id"),
  };
}

/** The write of a symbol's minute of trades, parameters in the order of WRITES.minute. */
export function bucketOp(symbol: string, b: TradeBucket): WriteOp {
  return [
    "minute",
    symbol,
    b.minute,
    b.firstId,
    b.lastId,
    b.count,
    plain(b.open),
    plain(b.high),
    plain(b.low),
    plain(b.close),
    plain(b.closeQty),
    plain(b.volume),
    plain(b.quoteVolume),
  ];
}

export interface BucketRow {
  minute: number;
  first_id: number;
  last_id: number;
  count: number;
  open: string;
  high: string;
  low: string;
  close: string;
  close_qty: string;
  volume: string;
  quote_volume: string;
}

export function bucketFromRow(r: BucketRow, symbol: string): TradeBucket {
  const c = new Columns(
    r as unknown as Record<string, unknown>,
    () => `table trade_minutes, ${symbol} minute ${String(r.minute)}`,
  );
  return {
    minute: c.time("minute"),
    firstId: c.id("first_id"),
    lastId: c.id("last_id"),
    count: c.whole("count"),
    open: c.decimal("open"),
    high: c.decimal("high"),
    low: c.decimal("low"),
    close: c.decimal("close"),
    closeQty: c.decimal("close_qty"),
    volume: c.decimal("volume"),
    quoteVolume: c.decimal("quote_volume"),
  };
}

export interface CandleRow {
  open_time: number;
  first_id: number;
  last_id: number;
  count: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  quote_volume: string;
  taker_buy_volume: string;
  taker_buy_quote_volume: string;
}

/** A candle row (`SELECT *`: with its symbol and level), checked as it is read (row-checks.ts). */
export function candleFromRow(r: CandleRow): Candle {
  const row = r as unknown as Record<string, unknown>;
  const c = new Columns(
    row,
    () => `table candles, ${String(row.symbol)} level ${String(row.level)} open time ${String(r.open_time)}`,
  );
  return {
    openTime: c.time("open_time"),
    firstId: c.id("first_id"),
    lastId: c.id("last_id"),
    count: c.whole("count"),
    open: c.decimal("open"),
    high: c.decimal("high"),
    low: c.decimal("low"),
    close: c.decimal("close"),
    volume: c.decimal("volume"),
    quoteVolume: c.decimal("quote_volume"),
    takerBuyVolume: c.decimal("taker_buy_volume"),
    takerBuyQuoteVolume: c.decimal("taker_buy_quote_volume"),
  };
}

export interface WriteContext {
  fees: ReadonlyMap<string, bigint>;
  deposits: ReadonlyMap<string, bigint>;
  /** Position of the next new account (accounts load in creation order). */
  nextAccount(): number;
  symbolPosition(symbol: string): number;
}

/** The writes that persist a change set, with the values the objects hold now. */
export function changeWrites(changes: ChangeSet, context: WriteContext): WriteOp[] {
  const ops: WriteOp[] = [];
  for (const account of changes.accounts) {
    ops.push(["account", account.id, context.nextAccount(), account.exemptFromOrderLimits ? 1 : 0]);
  }
  const key = (symbol: string, id: number) => {
    if (!(id >= 0 && id < ID_SPAN))
      throw new Error(`${symbol} id ${id} is outside the state database's range`);
    return rowKey(context.symbolPosition(symbol), id);
  };
  for (const order of changes.orders) ops.push(orderOp(key(order.symbol, order.orderId), order));
  for (const trade of changes.trades) ops.push(tradeOp(key(trade.symbol, trade.id), trade));
  // After the trades, so that consecutive writes of one kind run as one statement (write-runner.ts).
  for (const trade of changes.trades) {
    const tradeKey = key(trade.symbol, trade.id);
    ops.push(["accountTrade", trade.buyer.accountId, tradeKey]);
    if (trade.seller.accountId !== trade.buyer.accountId)
      ops.push(["accountTrade", trade.seller.accountId, tradeKey]);
  }
  for (const agg of changes.aggTrades) ops.push(aggTradeOp(key(agg.symbol, agg.id), agg));
  for (const { account, asset } of changes.balances) {
    const b = account.balances.get(asset);
    ops.push([
      "balance",
      account.id,
      asset,
      plain(b?.free ?? 0n),
      plain(b?.locked ?? 0n),
      account.updateTime,
    ]);
  }
  for (const asset of changes.fees) ops.push(["fee", asset, plain(context.fees.get(asset) ?? 0n)]);
  for (const asset of changes.deposits)
    ops.push(["deposit", asset, plain(context.deposits.get(asset) ?? 0n)]);
  const minutes = new Set<string>();
  for (const trade of changes.trades) {
    const market = changes.markets.find((m) => m.config.symbol === trade.symbol);
    const bucket = market?.stats.minuteOf(trade.time);
    const key = `${trade.symbol}|${bucket?.minute}`;
    if (!bucket || minutes.has(key)) continue;
    minutes.add(key);
    ops.push(bucketOp(trade.symbol, bucket));
  }
  for (const m of changes.markets) {
    ops.push([
      "counters",
      m.config.symbol,
      m.nextOrderId,
      m.nextTradeId,
      m.nextAggTradeId,
      m.nextBookSeq,
      m.lastUpdateId,
    ]);
  }
  return ops;
}
