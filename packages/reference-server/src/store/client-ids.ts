/**
 * The SQL side of generated client order ids (src/engine/client-order-ids.ts): an order whose
 * client order id decodes to its own orderId is found by decoding, so its id gets no row in
 * client_order_ids. The write statements ask `names_its_order(client_order_id, order_id)`, which
 * every connection that writes defines before it prepares them.
 */
import { namesItsOrder } from "../engine/client-order-ids.js";
import type { Database } from "./driver.js";

export function defineClientIdFunctions(db: Database): void {
  db.function("names_its_order", { deterministic: true }, (clientOrderId: unknown, orderId: unknown) =>
    typeof clientOrderId === "string" && namesItsOrder(clientOrderId, Number(orderId)) ? 1 : 0,
  );
}
