// The clean-up that ends every run, also after a failure or an interrupt: the orders the run created.
import { bodyObject, ok } from "../checks/context.js";
import { encodeParams } from "../http/request.js";
import type { OrderLedger } from "../orders.js";
import type { CleanupReport } from "../results.js";
import type { Session } from "../session.js";

const STILL_OPEN = ["NEW", "PARTIALLY_FILLED", "PENDING_NEW"];

/**
 * Cancels every order of the ledger not known to be closed. When a cancel is refused, the order
 * may never have been created: query_order, then the open-order list of its symbol, decide.
 */
export async function cleanup(session: Session, ledger: OrderLedger): Promise<CleanupReport> {
  const report: CleanupReport = { created: ledger.placedCount, cancelledAtEnd: 0, leftOpen: [] };
  const cancel = session.model.operation("cancel_order");
  const query = session.model.operation("query_order");
  const openOrders = session.model.operation("open_orders");
  const essential = { essential: true, responseChecks: false } as const;
  const openLists = new Map<string, Record<string, unknown>[] | undefined>();
  const openList = async (symbol: string) => {
    if (!openLists.has(symbol) && openOrders) {
      const exchange = await session.call(
        { op: openOrders, params: encodeParams(openOrders, { symbol }) },
        "clean-up: open_orders",
        essential,
      );
      const json = exchange.response?.json;
      openLists.set(
        symbol,
        ok(exchange) && Array.isArray(json) ? (json as Record<string, unknown>[]) : undefined,
      );
    }
    return openLists.get(symbol);
  };
  for (const entry of ledger.outstanding()) {
    const label = `${entry.clientOrderId} on ${entry.symbol}`;
    if (!cancel || !session.canSign) {
      report.leftOpen.push(label);
      continue;
    }
    const values = { symbol: entry.symbol, origClientOrderId: entry.clientOrderId };
    const cancelled = await session.call(
      { op: cancel, params: encodeParams(cancel, values) },
      "clean-up: cancel_order",
      essential,
    );
    if (ok(cancelled)) {
      ledger.closed(entry.clientOrderId);
      report.cancelledAtEnd += 1;
      continue;
    }
    if (query) {
      const found = await session.call(
        { op: query, params: encodeParams(query, values) },
        "clean-up: query_order",
        essential,
      );
      const status = bodyObject(found)?.status;
      const unknown =
        found.response !== undefined && found.response.status >= 400 && found.response.status < 500;
      if (unknown || (ok(found) && typeof status === "string" && !STILL_OPEN.includes(status))) {
        ledger.closed(entry.clientOrderId);
        continue;
      }
    }
    const open = await openList(entry.symbol);
    if (open && !open.some((o) => o.clientOrderId === entry.clientOrderId)) {
      ledger.closed(entry.clientOrderId);
      continue;
    }
    report.leftOpen.push(label);
  }
  return report;
}
