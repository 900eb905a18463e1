/**
 * cursor_paging (x-cursor-paging): a page asked to start at an id starts there (inclusive) and,
 * where ids are contiguous, runs id, id + 1, … exactly as the unpaged list does: nothing skipped,
 * nothing repeated.
 */

import type { ContractOperation } from "../core/operations.js";
import { fetchServed, idsOf, isRead, listAt, short, valuesFor } from "../kit/behaviour-support.js";
import type { RunContext } from "../kit/context.js";
import type { ContractCheck } from "./check.js";

const CHECK = "cursor_paging";

export const cursorPaging: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "paging",
  description: "a page asked from an id starts there and runs on without gaps or repeats (x-cursor-paging)",
  covers: ["x-cursor-paging"],
  hooks: [{ phase: "behaviour", run: cursorPagingCheck, needsHistory: true }],
  appliesTo: (operation) => isRead(operation) && operation.behaviour.cursorPaging !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: ["historical-fromId-exclusive", "aggTrades-fromId-ignored"],
};
const PAGE = 5;

export async function cursorPagingCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const paging = operation.behaviour.cursorPaging;
  if (!paging) return;
  const limit = operation.behaviour.limit?.parameter ?? "limit";
  const recent = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [limit]: 20 }),
    "paging: the newest items",
  );
  if (!recent) return;
  const ids = idsOf(listAt(recent.json, "") ?? [], paging.field);
  if (!ids || ids.length < PAGE + 2) {
    ctx.session.recorder.note(
      CHECK,
      operation.operationId,
      `only ${ids?.length ?? 0} items with integer ids: paging not observable`,
    );
    return;
  }
  const cursor = ids[1]!;
  const page = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [paging.parameter]: cursor, [limit]: PAGE }),
    `paging: ${paging.parameter}=${cursor}`,
  );
  if (!page) return;
  const got = idsOf(listAt(page.json, "") ?? [], paging.field) ?? [];
  const want = ids.filter((id) => (paging.inclusive ? id >= cursor : id > cursor)).slice(0, PAGE);
  const contiguousOk = !paging.contiguous || got.every((id, i) => i === 0 || id === got[i - 1]! + 1);
  if (got.join(",") === want.join(",") && contiguousOk) {
    ctx.session.pass(CHECK, page.exchange);
    return;
  }
  const first = paging.inclusive ? `start at ${cursor}` : `start after ${cursor}`;
  ctx.session.fail(
    CHECK,
    page.exchange,
    `${paging.parameter}=${cursor} should ${first}${paging.contiguous ? " with contiguous ids" : ""} (x-cursor-paging): want ids ${short(want)}, got ${short(got)}`,
  );
}
