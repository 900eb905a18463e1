/**
 * result_filter (x-result-filter): with a filter the answer holds exactly what it names: every
 * item carries the named value, and with a list (`symbols`) every named value is there.
 */

import type { ContractOperation } from "../core/operations.js";
import { fetchServed, isRead, listAt, short, valueAt, valuesFor } from "../kit/behaviour-support.js";
import type { RunContext } from "../kit/context.js";
import type { ContractCheck } from "./check.js";

const CHECK = "result_filter";

export const resultFilter: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "filter",
  description: "symbol/symbols restrict the answer to exactly what they name (x-result-filter)",
  covers: ["x-result-filter"],
  hooks: [{ phase: "behaviour", run: resultFilterCheck, needsHistory: false }],
  appliesTo: (operation) => isRead(operation) && operation.behaviour.resultFilters !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: ["exchangeInfo-symbol-ignored", "open-orders-other-symbols"],
};

export async function resultFilterCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const filters = operation.behaviour.resultFilters;
  if (!filters) return;
  const symbols = ctx.values.symbols;
  for (const filter of filters.filters) {
    const wanted = filter.takes === "list" ? symbols.slice(0, 2) : [ctx.values.symbol];
    if (wanted.length === 0) continue;
    const value = filter.takes === "list" ? wanted : wanted[0];
    const served = await fetchServed(
      ctx,
      CHECK,
      operation,
      valuesFor(ctx, operation, { [filter.parameter]: value }),
      `filter: ${filter.parameter}=${JSON.stringify(value)}`,
    );
    if (!served) continue;
    const items = listAt(served.json, filter.list) ?? [];
    const got = items.map((item) => valueAt(item, filter.field));
    const stray = got.filter((v) => !wanted.includes(v as string));
    const missing = filter.takes === "list" ? wanted.filter((w) => !got.includes(w)) : [];
    if (stray.length === 0 && missing.length === 0) {
      ctx.session.pass(CHECK, served.exchange);
      if (items.length === 0)
        ctx.session.recorder.note(CHECK, operation.operationId, `${filter.parameter}: the answer was empty`);
      continue;
    }
    ctx.session.fail(
      CHECK,
      served.exchange,
      `${filter.parameter}=${JSON.stringify(value)} should restrict the answer to exactly ${short(wanted)} (x-result-filter)${stray.length ? `; it also holds ${short([...new Set(stray)])}` : ""}${missing.length ? `; it lacks ${short(missing)}` : ""}`,
    );
  }
}
