/**
 * The state database's read statements. History reads name the index they search (INDEXED BY), so
 * the planner cannot fall back to walking a symbol's primary key while filtering on account, client
 * order id or time, which made those reads grow with the history; test/query-plans.test.ts asserts
 * that each history read is a SEARCH. Time bounds reach the id-ordered pages through the `...IdAt`
 * statements: the first id at or after a time, found in a (symbol, time) index.
 */

/** Reads of the history, each an index search whatever the history's size. */
export const HISTORY_READS = {
  order: "SELECT * FROM orders WHERE symbol = ? AND order_id = ?",
  // (account, symbol, clientOrderId)
  orderByClientId: `SELECT * FROM orders INDEXED BY orders_by_client_id
    WHERE account = ? AND symbol = ? AND client_order_id = ? ORDER BY order_id DESC LIMIT 1`,
  // (account, symbol, lowest id, id above the last, limit)
  ordersAsc: `SELECT * FROM orders INDEXED BY orders_by_account
    WHERE account = ? AND symbol = ? AND order_id >= ? AND order_id < ? ORDER BY order_id ASC LIMIT ?`,
  ordersDesc: `SELECT * FROM orders INDEXED BY orders_by_account
    WHERE account = ? AND symbol = ? AND order_id >= ? AND order_id < ? ORDER BY order_id DESC LIMIT ?`,
  // (symbol, time): the first order of the symbol placed at or after the time
  orderIdAt: `SELECT order_id AS id FROM orders INDEXED BY orders_by_symbol_time
    WHERE symbol = ? AND time >= ? ORDER BY time, order_id LIMIT 1`,
  aggTradesAsc: "SELECT * FROM agg_trades WHERE symbol = ? AND id >= ? AND id < ? ORDER BY id ASC LIMIT ?",
  aggTradesDesc: "SELECT * FROM agg_trades WHERE symbol = ? AND id >= ? AND id < ? ORDER BY id DESC LIMIT ?",
  aggTradeIdAt: `SELECT id FROM agg_trades INDEXED BY agg_trades_by_time
    WHERE symbol = ? AND time >= ? ORDER BY time, id LIMIT 1`,
  recentTrades: "SELECT * FROM trades WHERE symbol = ? ORDER BY id DESC LIMIT ?",
  tradesFrom: "SELECT * FROM trades WHERE symbol = ? AND id >= ? ORDER BY id LIMIT ?",
  tradesBetween: `SELECT * FROM trades INDEXED BY trades_by_time
    WHERE symbol = ? AND time >= ? AND time < ? ORDER BY time, id`,
  lastTradeBefore: `SELECT * FROM trades INDEXED BY trades_by_time
    WHERE symbol = ? AND time < ? ORDER BY time DESC, id DESC LIMIT 1`,
  tradeIdAt:
    "SELECT id FROM trades INDEXED BY trades_by_time WHERE symbol = ? AND time >= ? ORDER BY time, id LIMIT 1",
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
