/**
 * The state database's read statements. History reads name the index they search (INDEXED BY), so
 * the planner cannot fall back to walking a symbol's primary key while filtering on account or
 * client order id, which made those reads grow with the history; test/query-plans.test.ts asserts
 * that each history read is a SEARCH. Time bounds reach the id-ordered pages through ids: a
 * symbol's ids and times grow together, so the first id at or after a time is found by a binary
 * search over the primary key (the `...IdFrom` and `...IdLast` probes, each one index search),
 * without an index by time that every order and trade would pay for.
 */

/** Reads of the history, each an index search whatever the history's size. */
export const HISTORY_READS = {
  order: "SELECT * FROM orders WHERE symbol = ? AND order_id = ?",
  // (account, symbol, clientOrderId, id above): the newest order id below the bound with that client
  // order id, among the orders below the symbol's client_ids_below
  orderIdByClientId: `SELECT order_id AS id FROM client_order_ids
    WHERE account = ? AND symbol = ? AND client_order_id = ? AND order_id < ? ORDER BY order_id DESC LIMIT 1`,
  // (account, symbol, lowest id, id above the last, limit)
  ordersAsc: `SELECT * FROM orders INDEXED BY orders_by_account
    WHERE account = ? AND symbol = ? AND order_id >= ? AND order_id < ? ORDER BY order_id ASC LIMIT ?`,
  ordersDesc: `SELECT * FROM orders INDEXED BY orders_by_account
    WHERE account = ? AND symbol = ? AND order_id >= ? AND order_id < ? ORDER BY order_id DESC LIMIT ?`,
  // (symbol, id): the first order of the symbol at or after the id, with its time
  orderIdFrom:
    "SELECT order_id AS id, time FROM orders WHERE symbol = ? AND order_id >= ? ORDER BY order_id LIMIT 1",
  orderIdLast: "SELECT order_id AS id, time FROM orders WHERE symbol = ? ORDER BY order_id DESC LIMIT 1",
  aggTradesAsc: "SELECT * FROM agg_trades WHERE symbol = ? AND id >= ? AND id < ? ORDER BY id ASC LIMIT ?",
  aggTradesDesc: "SELECT * FROM agg_trades WHERE symbol = ? AND id >= ? AND id < ? ORDER BY id DESC LIMIT ?",
  aggTradeIdFrom: "SELECT id, time FROM agg_trades WHERE symbol = ? AND id >= ? ORDER BY id LIMIT 1",
  aggTradeIdLast: "SELECT id, time FROM agg_trades WHERE symbol = ? ORDER BY id DESC LIMIT 1",
  recentTrades: "SELECT * FROM trades WHERE symbol = ? ORDER BY id DESC LIMIT ?",
  tradesFrom: "SELECT * FROM trades WHERE symbol = ? AND id >= ? ORDER BY id LIMIT ?",
  // (symbol, first id, id above the last)
  tradesBetween: "SELECT * FROM trades WHERE symbol = ? AND id >= ? AND id < ? ORDER BY id",
  // (symbol, id above): the last trade below an id
  tradeBefore: "SELECT * FROM trades WHERE symbol = ? AND id < ? ORDER BY id DESC LIMIT 1",
  tradeIdFrom: "SELECT id, time FROM trades WHERE symbol = ? AND id >= ? ORDER BY id LIMIT 1",
  tradeIdLast: "SELECT id, time FROM trades WHERE symbol = ? ORDER BY id DESC LIMIT 1",
} as const;

/**
 * myTrades is no HTTP operation (the engine and library API have it): the account's trades are
 * found among the symbol's trades in the id range, without an index by account that every trade
 * would pay for twice.
 */
const ACCOUNT_TRADES_WHERE = `symbol = ? AND id >= ? AND id < ? AND ((buyer = ? AND (? < 0 OR buyer_order_id = ?))
    OR (seller = ? AND (? < 0 OR seller_order_id = ?)))`;

/** Reads at start-up and of settings. */
export const OTHER_READS = {
  accountTradesAsc: `SELECT * FROM trades WHERE ${ACCOUNT_TRADES_WHERE} ORDER BY id ASC LIMIT ?`,
  accountTradesDesc: `SELECT * FROM trades WHERE ${ACCOUNT_TRADES_WHERE} ORDER BY id DESC LIMIT ?`,
  metaValue: "SELECT value FROM meta WHERE key = ?",
  meta: "SELECT key, value FROM meta",
  symbols: "SELECT * FROM symbols ORDER BY position",
  accounts: "SELECT * FROM accounts ORDER BY position",
  balances: "SELECT * FROM balances",
  fees: "SELECT * FROM fees",
  deposits: "SELECT * FROM deposits",
  openOrders: "SELECT * FROM orders WHERE status IN ('NEW', 'PARTIALLY_FILLED') ORDER BY symbol, order_id",
  // (symbol, client_ids_below): the orders whose client order ids are not in client_order_ids yet
  clientIdTail:
    "SELECT account, client_order_id, order_id FROM orders WHERE symbol = ? AND order_id >= ? ORDER BY order_id",
  // (symbol, first id, last id, limit)
  volumesInIds:
    "SELECT id, time, qty, quote_qty FROM trades WHERE symbol = ? AND id >= ? AND id <= ? ORDER BY id LIMIT ?",
  lastTrade: "SELECT * FROM trades WHERE symbol = ? ORDER BY id DESC LIMIT 1",
  lastAggTrade: "SELECT * FROM agg_trades WHERE symbol = ? ORDER BY id DESC LIMIT 1",
  minutes: "SELECT * FROM trade_minutes WHERE symbol = ? AND minute >= ? ORDER BY minute",
  maxOrderId: "SELECT max(order_id) AS id FROM orders WHERE symbol = ?",
  maxTradeId: "SELECT max(id) AS id FROM trades WHERE symbol = ?",
  maxAggTradeId: "SELECT max(id) AS id FROM agg_trades WHERE symbol = ?",
} as const;
