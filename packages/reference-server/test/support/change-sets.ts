// A change set that holds only orders, as an operation that touched nothing else would record.
import type { ChangeSet, Order } from "../../src/engine/index.js";

export function ordersChanged(orders: Order[]): ChangeSet {
  return {
    orders,
    trades: [],
    aggTrades: [],
    balances: [],
    fees: [],
    deposits: [],
    accounts: [],
    markets: [],
  };
}
