/**
 * The state database's read statements. History reads name the index they search (INDEXED BY)
 * where the planner might fall back to walking all of a symbol's rows while filtering on account,
 * which made those reads grow with the history; test/query-plans.test.ts asserts that each history
 * read is a SEARCH. Orders, trades and aggregate trades are found in the symbol's own tables
 * (`{orders}`, `{trades}`, `{aggTrades}`: placeholders, see schema.ts) by their integer key (the
 * symbol's position × 2^40 + the id). Time bounds reach the id-ordered pages through ids: a
 * symbol's ids and times grow together, so the first id at or after a time is found by a binary
 * search over the key (the `...IdFrom` and `...IdLast` probes, each one search), without an index
 * by time that every order and trade would pay for.
 */

/** (order id, the same, the same): a trade of that order of the account (any of its trades for -1). */
const OWN_ORDER = `(? < 0 OR (t.buyer = a.account AND t.buyer_order_id = ?)
    OR (t.seller = a.account AND t.seller_order_id = ?))`;

/**
 * Reads of the history, each an index search whatever the history's size. Rows of orders, trades
 * and aggregate trades are found by `key` (rowKey in rows.ts): a symbol's rows from id a to below
 * id b are the keys from rowKey(symbol, a) to below rowKey(symbol, b).
 */
export const HISTORY_READS = {
  // (key)
  order: "SELECT * FROM {orders} WHERE key = ?",
  // (account, symbol, clientOrderId, id above): the newest order id below the bound with that client
  // order id, among the orders below the symbol's client_ids_below
  orderIdByClientId: `SELECT order_id AS id FROM client_order_ids
    WHERE account = ? AND symbol = ? AND client_order_id = ? AND order_id < ? ORDER BY order_id DESC LIMIT 1`,
  // (account, lowest key, key above the last, limit): among the orders below the symbol's
  // client_ids_below (account_orders is written in the same chunks as client_order_ids)
  ordersAsc: `SELECT o.* FROM account_orders a JOIN {orders} o ON o.key = a.key
    WHERE a.account = ? AND a.key >= ? AND a.key < ? ORDER BY a.key ASC LIMIT ?`,
  ordersDesc: `SELECT o.* FROM account_orders a JOIN {orders} o ON o.key = a.key
    WHERE a.account = ? AND a.key >= ? AND a.key < ? ORDER BY a.key DESC LIMIT ?`,
  // (lowest key, key above the last): the first row from a key, with its id and time
  orderIdFrom: "SELECT order_id AS id, time FROM {orders} WHERE key >= ? AND key < ? ORDER BY key LIMIT 1",
  orderIdLast:
    "SELECT order_id AS id, time FROM {orders} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1",
  // (lowest key, key above the last, limit)
  aggTradesAsc: "SELECT * FROM {aggTrades} WHERE key >= ? AND key < ? ORDER BY key ASC LIMIT ?",
  aggTradesDesc: "SELECT * FROM {aggTrades} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT ?",
  aggTradeIdFrom: "SELECT id, time FROM {aggTrades} WHERE key >= ? AND key < ? ORDER BY key LIMIT 1",
  aggTradeIdLast: "SELECT id, time FROM {aggTrades} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1",
  recentTrades: "SELECT * FROM {trades} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT ?",
  tradesFrom: "SELECT * FROM {trades} WHERE key >= ? AND key < ? ORDER BY key LIMIT ?",
  tradesBetween: "SELECT * FROM {trades} WHERE key >= ? AND key < ? ORDER BY key",
  // the last trade below a key
  tradeBefore: "SELECT * FROM {trades} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1",
  tradeIdFrom: "SELECT id, time FROM {trades} WHERE key >= ? AND key < ? ORDER BY key LIMIT 1",
  tradeIdLast: "SELECT id, time FROM {trades} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1",
  // (account, lowest key, key above the last, order id or -1 three times, limit): the account's trades
  // (myTrades), found through account_trades; with an order id, that order's only
  accountTradesAsc: `SELECT t.* FROM account_trades a JOIN {trades} t ON t.key = a.key
    WHERE a.account = ? AND a.key >= ? AND a.key < ? AND ${OWN_ORDER} ORDER BY a.key ASC LIMIT ?`,
  accountTradesDesc: `SELECT t.* FROM account_trades a JOIN {trades} t ON t.key = a.key
    WHERE a.account = ? AND a.key >= ? AND a.key < ? AND ${OWN_ORDER} ORDER BY a.key DESC LIMIT ?`,
  // (symbol, level, from, to): the candles of a level opening in [from, to)
  candlesBetween: `SELECT * FROM candles WHERE symbol = ? AND level = ? AND open_time >= ? AND open_time < ?
    ORDER BY open_time`,
  // (symbol, level, time): the newest candle opening before it
  candleBefore:
    "SELECT * FROM candles WHERE symbol = ? AND level = ? AND open_time < ? ORDER BY open_time DESC LIMIT 1",
  // (symbol, level)
  firstCandle: "SELECT * FROM candles WHERE symbol = ? AND level = ? ORDER BY open_time LIMIT 1",
} as const;

/** Reads at start-up and of settings. */
export const OTHER_READS = {
  metaValue: "SELECT value FROM meta WHERE key = ?",
  meta: "SELECT key, value FROM meta",
  // A symbol without its counters reads them as null (a damaged file, refused at load).
  symbols: `SELECT s.symbol, s.position, s.config, s.client_ids_below, c.next_order_id, c.next_trade_id,
      c.next_agg_trade_id, c.next_book_seq, c.last_update_id
    FROM symbols s LEFT JOIN symbol_counters c ON c.symbol = s.symbol ORDER BY s.position`,
  accounts: "SELECT * FROM accounts ORDER BY position",
  balances: "SELECT * FROM balances",
  fees: "SELECT * FROM fees",
  deposits: "SELECT * FROM deposits",
  // the symbol's open orders, from its partial index
  openOrders: "SELECT * FROM {orders} WHERE status IN ('NEW', 'PARTIALLY_FILLED') ORDER BY order_id",
  // (lowest key, key above the last): the orders whose client order ids are not in client_order_ids yet
  clientIdTail:
    "SELECT account, client_order_id, order_id FROM {orders} WHERE key >= ? AND key < ? ORDER BY key",
  // (first key, last key, limit)
  volumesInIds:
    "SELECT id, time, qty, quote_qty FROM {trades} WHERE key >= ? AND key <= ? ORDER BY key LIMIT ?",
  // (lowest key, key above the last) of the symbol
  lastTrade: "SELECT * FROM {trades} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1",
  lastAggTrade: "SELECT * FROM {aggTrades} WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1",
  minutes: "SELECT * FROM trade_minutes WHERE symbol = ? AND minute >= ? ORDER BY minute",
  // (symbol, level): the latest candle of a level, which the next trades fold into
  lastCandle: "SELECT * FROM candles WHERE symbol = ? AND level = ? ORDER BY open_time DESC LIMIT 1",
  // (symbol, level, from): a level's candles from an open time on (the latest candles' parts, at start-up)
  candlesFrom: "SELECT * FROM candles WHERE symbol = ? AND level = ? AND open_time >= ? ORDER BY open_time",
} as const;
