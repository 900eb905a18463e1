// The operations that create, read and cancel an account's orders: the one list of them.
import type { ContractOperation } from "../core/operations.js";

/**
 * The operations that create, read and cancel an account's orders: the one list of them. Every
 * phase and check that trades takes them from orderOperations().
 */
export const ORDER_OPERATIONS = {
  newOrder: "new_order",
  queryOrder: "query_order",
  openOrders: "open_orders",
  cancelOrder: "cancel_order",
  allOrders: "all_orders",
  cancelAll: "cancel_all_orders",
} as const;

/** Their operationIds. */
export const ORDER_OPERATION_IDS: readonly string[] = Object.values(ORDER_OPERATIONS);

export interface TradingOps {
  newOrder: ContractOperation;
  queryOrder: ContractOperation;
  openOrders: ContractOperation;
  cancelOrder: ContractOperation;
  allOrders: ContractOperation;
  /** Optional: without it, each order is cancelled by itself. */
  cancelAll: ContractOperation | undefined;
}

/** The order operations of the spec, or why trading cannot be judged without one that is missing. */
export function orderOperations(model: {
  operation(id: string): ContractOperation | undefined;
}): TradingOps | { reason: string } {
  const get = (key: keyof typeof ORDER_OPERATIONS) => model.operation(ORDER_OPERATIONS[key]);
  const [newOrder, queryOrder, openOrders, cancelOrder, allOrders] = [
    get("newOrder"),
    get("queryOrder"),
    get("openOrders"),
    get("cancelOrder"),
    get("allOrders"),
  ];
  if (!newOrder || !queryOrder || !openOrders || !cancelOrder || !allOrders) {
    const required = ORDER_OPERATION_IDS.filter((id) => id !== ORDER_OPERATIONS.cancelAll);
    return { reason: `the spec lacks one of ${required.join(", ")}` };
  }
  return { newOrder, queryOrder, openOrders, cancelOrder, allOrders, cancelAll: get("cancelAll") };
}
