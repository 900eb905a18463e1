/**
 * list_order (x-list-order): every list of the answer is sorted as the spec states, by its field
 * and direction, without ties where the spec says so: a page read for it, and at the end every
 * answer of the run, whichever check asked and with whatever parameters (an order out of place
 * shows only once the account's orders are old and new, open and closed). Derived from the
 * extension; nothing here names an operation.
 */

import type { ContractOperation } from "../core/operations.js";
import { ok } from "../kit/answers.js";
import { compareKeys, fetchServed, isRead, listAt, valueAt, valuesFor } from "../kit/behaviour-support.js";
import type { RunContext } from "../kit/context.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "list_order";

export const listOrder: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "order",
  description: "every list answer is sorted by the field and direction x-list-order states",
  covers: ["x-list-order"],
  hooks: [
    { phase: "behaviour", run: listOrderCheck, needsHistory: true },
    { phase: "end", run: judgeEveryList },
  ],
  appliesTo: (operation) => isRead(operation) && operation.behaviour.listOrder !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: ["trades-newest-first", "bids-worst-first", "all-orders-open-listed-last"],
};

export async function listOrderCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const order = operation.behaviour.listOrder;
  if (!order) return;
  const limit = operation.behaviour.limit;
  const values = valuesFor(ctx, operation, limit ? { [limit.parameter]: Math.min(limit.maximum, 100) } : {});
  const served = await fetchServed(ctx, CHECK, operation, values, "list order: a page of the list");
  if (!served) return;
  for (const entry of order.lists) {
    const items = listAt(served.json, entry.list) ?? [];
    const where = entry.list || "the answer";
    if (items.length < 2) {
      ctx.session.recorder.note(
        CHECK,
        operation.operationId,
        `${where} had ${items.length} item(s): order not observable`,
      );
      continue;
    }
    const wrong = firstOutOfOrder(items, entry.field, entry.direction, entry.strict);
    if (wrong === undefined) ctx.session.pass(CHECK, served.exchange);
    else
      ctx.session.fail(
        CHECK,
        served.exchange,
        `${where} is not ${entry.direction}${entry.strict ? " without ties" : ""} by ${entry.field} (x-list-order): item ${wrong} has ${JSON.stringify(valueAt(items[wrong], entry.field))} after ${JSON.stringify(valueAt(items[wrong - 1], entry.field))}`,
        `${entry.list}/${wrong}${entry.field}`,
      );
  }
}

/** The index of the first item out of order, or undefined when the list is sorted. */
export function firstOutOfOrder(
  items: readonly unknown[],
  field: string,
  direction: "ascending" | "descending",
  strict: boolean,
): number | undefined {
  const sign = direction === "ascending" ? 1 : -1;
  for (let i = 1; i < items.length; i++) {
    const c = compareKeys(valueAt(items[i], field), valueAt(items[i - 1], field));
    if (c === undefined) return i;
    const step = c * sign;
    if (step < 0 || (strict && step === 0)) return i;
  }
  return undefined;
}

/** Every served answer of the run with a list x-list-order orders: the first out of order, per operation, fails. */
async function judgeEveryList(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  if (!session.recorder.enabled(CHECK)) return;
  const judged = new Map<string, RoundTrip>();
  const failed = new Set<string>();
  for (const { exchange } of session.timeline) {
    const id = exchange.op.operationId;
    const order = exchange.op.behaviour.listOrder;
    if (!order || !ok(exchange) || failed.has(id)) continue;
    for (const entry of order.lists) {
      const items = listAt(exchange.response?.json, entry.list) ?? [];
      const wrong =
        items.length < 2 ? undefined : firstOutOfOrder(items, entry.field, entry.direction, entry.strict);
      if (items.length >= 2) judged.set(id, exchange);
      if (wrong === undefined) continue;
      failed.add(id);
      session.fail(
        CHECK,
        exchange,
        `${entry.list || "the answer"} of this ${id} answer (${exchange.case}) is not ${entry.direction}${entry.strict ? " without ties" : ""} by ${entry.field} (x-list-order): item ${wrong} has ${JSON.stringify(valueAt(items[wrong], entry.field))} after ${JSON.stringify(valueAt(items[wrong - 1], entry.field))}`,
        `${entry.list}/${wrong}${entry.field}`,
      );
      break;
    }
  }
  for (const [id, exchange] of judged) if (!failed.has(id)) session.pass(CHECK, exchange);
}
