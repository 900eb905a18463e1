// The clean-up that ends every run, also after a failure or an interrupt: the orders the run created.

import { encodeParams } from "../http/request.js";
import { ok } from "../kit/answers.js";
import type { LedgerEntry, OrderLedger } from "../kit/ledger.js";
import { afterCancel, afterQuery } from "../kit/order-state.js";
import type { Session } from "../session/session.js";

/**
 * Cancels every order of the ledger not known to be closed. An order counts as closed only on a
 * clear answer (run/order-state.ts): its cancel succeeded or the server names it unknown with the
 * spec's code; query_order shows a final status; or the symbol's open-order list answered and
 * does not hold it. Every other order is reported as possibly open, with what was answered.
 */
export interface CleanupReport {
  /** Orders the target accepted during this run. */
  created: number;
  /** Order-creating requests the run sent, accepted or not (0: the run never tried to trade). */
  sent?: number;
  /** Accepted orders by what placed them ("order lifecycle", "history", "order arithmetic"…). */
  placedBy?: Record<string, number>;
  /** Orders cancelled by the final clean-up (the lifecycle cancels most on its own). */
  cancelledAtEnd: number;
  /** Orders that may still be open: client order ids with their symbol. */
  leftOpen: string[];
}

/** The clean-up's own bound: a target that stops answering cannot keep the run past it. */
export const CLEANUP_MAX_MS = 60_000;
/** Requests in a row without an answer after which the clean-up sends no more. */
const CLEANUP_UNANSWERED = 2;

export async function cleanup(
  session: Session,
  ledger: OrderLedger,
  maxMs: number = CLEANUP_MAX_MS,
): Promise<CleanupReport> {
  const report: CleanupReport = {
    created: ledger.placedCount,
    sent: ledger.sentCount,
    placedBy: ledger.placedBy(),
    cancelledAtEnd: 0,
    leftOpen: [],
  };
  const cancel = session.model.operation("cancel_order");
  const query = session.model.operation("query_order");
  const openOrders = session.model.operation("open_orders");
  const deadline = AbortSignal.timeout(maxMs);
  const essential = { essential: true, responseChecks: false, signal: deadline } as const;
  let unanswered = 0;
  /** Why nothing more is sent, once the target stopped answering or the clean-up's time is up. */
  const stopped = (): string | undefined =>
    deadline.aborted
      ? `not sent: the clean-up's ${Math.round(maxMs / 1000)} s were up`
      : unanswered >= CLEANUP_UNANSWERED
        ? "not sent: the server stopped answering during the clean-up"
        : undefined;
  const call = async (...args: Parameters<Session["call"]>) => {
    const exchange = await session.call(...args);
    unanswered = exchange.response ? 0 : unanswered + 1;
    return exchange;
  };
  const openLists = new Map<string, Record<string, unknown>[] | string>();
  /** The symbol's open orders, or why they could not be read. */
  const openList = async (symbol: string, as: LedgerEntry["as"]) => {
    const key = `${symbol}\u0000${as?.apiKey ?? ""}`;
    if (!openLists.has(key)) {
      if (!openOrders) openLists.set(key, "the spec has no open_orders");
      else {
        const exchange = await call(
          { op: openOrders, params: encodeParams(openOrders, { symbol }), ...(as ? { as } : {}) },
          "clean-up: open_orders",
          essential,
        );
        const json = exchange.response?.json;
        openLists.set(
          key,
          ok(exchange) && Array.isArray(json)
            ? (json as Record<string, unknown>[])
            : `open_orders answered ${exchange.response?.status ?? exchange.error?.message ?? "nothing"}`,
        );
      }
    }
    return openLists.get(key)!;
  };
  for (const entry of ledger.outstanding()) {
    const label = `${entry.clientOrderId} on ${entry.symbol}`;
    if (!cancel || !session.canSign) {
      report.leftOpen.push(
        `${label} (${cancel ? "no credentials to cancel it" : "the spec has no cancel_order"})`,
      );
      continue;
    }
    const notSent = stopped();
    if (notSent) {
      report.leftOpen.push(`${label} (${notSent})`);
      continue;
    }
    const values = { symbol: entry.symbol, origClientOrderId: entry.clientOrderId };
    const as = entry.as ? { as: entry.as } : {};
    const cancelled = await call(
      { op: cancel, params: encodeParams(cancel, values), ...as },
      "clean-up: cancel_order",
      essential,
    );
    const byCancel = afterCancel(cancel, cancelled);
    if (byCancel.state === "closed") {
      ledger.closed(entry.clientOrderId, entry.as);
      if (ok(cancelled)) report.cancelledAtEnd += 1;
      continue;
    }
    const answers = [byCancel.why];
    if (query && !stopped()) {
      const found = await call(
        { op: query, params: encodeParams(query, values), ...as },
        "clean-up: query_order",
        essential,
      );
      const byQuery = afterQuery(query, found);
      if (byQuery.state === "closed") {
        ledger.closed(entry.clientOrderId, entry.as);
        continue;
      }
      answers.push(byQuery.why);
      if (byQuery.state === "open") {
        report.leftOpen.push(`${label} (${answers.join("; ")})`);
        continue;
      }
    }
    const notAsked = stopped();
    if (notAsked) {
      report.leftOpen.push(`${label} (${[...answers, notAsked].join("; ")})`);
      continue;
    }
    const open = await openList(entry.symbol, entry.as);
    if (Array.isArray(open)) {
      if (!open.some((o) => o.clientOrderId === entry.clientOrderId)) {
        ledger.closed(entry.clientOrderId, entry.as);
        continue;
      }
      answers.push("open_orders lists it");
    } else answers.push(open);
    report.leftOpen.push(`${label} (${answers.join("; ")})`);
  }
  return report;
}
