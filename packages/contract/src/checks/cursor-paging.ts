/**
 * cursor_paging (x-cursor-paging): a page asked to start at an id starts there (inclusive) and,
 * where ids are contiguous, runs id, id + 1, … exactly as the unpaged list does: nothing skipped,
 * nothing repeated. A page asked from past the newest item holds nothing before its cursor (it is
 * empty, but for items newer than the newest read). At the end, every page of the run asked from
 * a cursor, whichever check or phase asked for it, holds no item before its cursor.
 */

import type { CursorPaging } from "@marketapi/spec/model";
import type { ContractOperation } from "../core/operations.js";
import { ok } from "../kit/answers.js";
import { fetchServed, idsOf, isRead, listAt, short, valuesFor } from "../kit/behaviour-support.js";
import type { RunContext } from "../kit/context.js";
import { paramValue, type RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "cursor_paging";

export const cursorPaging: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "paging",
  description: "a page asked from an id starts there and runs on without gaps or repeats (x-cursor-paging)",
  covers: ["x-cursor-paging"],
  hooks: [
    { phase: "behaviour", run: cursorPagingCheck, needsHistory: true },
    { phase: "end", run: judgeEveryCursorPage },
  ],
  appliesTo: (operation) => isRead(operation) && operation.behaviour.cursorPaging !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: [
    "historical-fromId-exclusive",
    "aggTrades-fromId-ignored",
    "historical-fromId-past-newest-clamped",
  ],
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
  if (got.join(",") === want.join(",") && contiguousOk) ctx.session.pass(CHECK, page.exchange);
  else {
    const first = paging.inclusive ? `start at ${cursor}` : `start after ${cursor}`;
    ctx.session.fail(
      CHECK,
      page.exchange,
      `${paging.parameter}=${cursor} should ${first}${paging.contiguous ? " with contiguous ids" : ""} (x-cursor-paging): want ids ${short(want)}, got ${short(got)}`,
    );
  }
  await pastTheNewest(ctx, operation, paging, Math.max(...ids) + 1);
}

/** A page asked from one past the newest id read: nothing older than its cursor (a clamped cursor shows the newest). */
async function pastTheNewest(
  ctx: RunContext,
  operation: ContractOperation,
  paging: CursorPaging,
  cursor: number,
): Promise<void> {
  const limit = operation.behaviour.limit?.parameter ?? "limit";
  const page = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [paging.parameter]: cursor, [limit]: PAGE }),
    `paging: ${paging.parameter}=${cursor}, past the newest item`,
  );
  if (!page) return;
  const problem = beforeCursor(paging, page.exchange);
  if (problem)
    ctx.session.fail(CHECK, page.exchange, `${problem}; the newest item read had id ${cursor - 1}`);
  else ctx.session.pass(CHECK, page.exchange);
}

/**
 * What a served page asked from a cursor holds before it (the ids that should not be there), or
 * undefined when it holds none or is not such a page.
 */
export function beforeCursor(paging: CursorPaging, exchange: RoundTrip): string | undefined {
  const cursor = Number(paramValue(exchange.plan.params, paging.parameter));
  if (!ok(exchange) || !Number.isSafeInteger(cursor)) return undefined;
  const ids = idsOf(listAt(exchange.response?.json, "") ?? [], paging.field) ?? [];
  const early = ids.filter((id) => (paging.inclusive ? id < cursor : id <= cursor));
  if (early.length === 0) return undefined;
  return `${paging.parameter}=${cursor} answered ids ${short(early)}, ${paging.inclusive ? "before" : "not after"} the cursor (x-cursor-paging: a page starts ${paging.inclusive ? "at" : "after"} its cursor)`;
}

/** Every page of the run asked from a cursor holds nothing before it; the first that does fails, with how many. */
async function judgeEveryCursorPage(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const pages = ctx.session.timeline
    .map(({ exchange }) => exchange)
    .filter((exchange) => exchange.op.behaviour.cursorPaging !== undefined && ok(exchange));
  const wrong = pages
    .map((exchange) => ({ exchange, problem: beforeCursor(exchange.op.behaviour.cursorPaging!, exchange) }))
    .filter((page): page is { exchange: RoundTrip; problem: string } => page.problem !== undefined);
  const first = wrong[0];
  if (first)
    ctx.session.fail(
      CHECK,
      first.exchange,
      `${first.problem} (${wrong.length} of the run's pages asked from a cursor hold items before it)`,
    );
}
