/**
 * The behaviour phase: for every operation, the checks its behaviour extensions call for, each in
 * its own module. Nothing here names an operation; a check runs where its extension is.
 */
import { type ContractOperation, methodOf } from "../operations.js";
import { PassStopped } from "../session.js";
import { BEHAVIOUR_CHECKS } from "./behaviour-names.js";
import { unreachable } from "./behaviour-support.js";
import { cancelRacePhase } from "./cancel-race.js";
import { enabled, markPass, type RunContext, reportPass } from "./context.js";
import { cursorPagingCheck } from "./cursor-paging.js";
import { exchangeFiltersPhase } from "./exchange-filters.js";
import { type MadeHistory, makeHistory } from "./history.js";
import { limitSemanticsCheck } from "./limit-semantics.js";
import { listOrderCheck } from "./list-order.js";
import { orderArithmeticPhase } from "./order-arithmetic.js";
import { resultFilterCheck } from "./result-filter.js";
import { symbolCaseCheck } from "./symbol-case.js";
import { timeWindowCheck } from "./time-window.js";
import { unknownReferenceCheck } from "./unknown-reference.js";

const READS = [
  ["list_order", listOrderCheck],
  ["cursor_paging", cursorPagingCheck],
  ["time_window", timeWindowCheck],
  ["result_filter", resultFilterCheck],
  ["limit_semantics", limitSemanticsCheck],
] as const;

export async function behaviourPhase(
  ctx: RunContext,
  operations: readonly ContractOperation[],
): Promise<void> {
  if (!BEHAVIOUR_CHECKS.some((check) => enabled(ctx, check))) return;
  await tradingBehaviour(ctx);
  const history = await historyFor(ctx, operations);
  try {
    await readBehaviour(ctx, operations);
  } finally {
    await history.cleanUp();
  }
}

/** The history the read checks need, made first when the target is thin and trading is allowed. */
async function historyFor(ctx: RunContext, operations: readonly ContractOperation[]): Promise<MadeHistory> {
  const reads = ["list_order", "cursor_paging", "time_window", "limit_semantics"] as const;
  const wanted = operations.some((o) => methodOf(o) === "GET" && reads.some((c) => appliesTo(c, o)));
  if (!wanted || !reads.some((check) => enabled(ctx, check))) return { cleanUp: async () => {} };
  try {
    return await makeHistory(ctx);
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    ctx.progress({ type: "stage", message: `history not made: ${error.message}` });
    return { cleanUp: async () => {} };
  }
}

async function readBehaviour(ctx: RunContext, operations: readonly ContractOperation[]): Promise<void> {
  for (const operation of operations) {
    const mark = markPass(ctx, operation.operationId);
    let note: string | undefined;
    try {
      const lacking = unreachable(ctx, operation);
      for (const [check, run] of READS) {
        if (!enabled(ctx, check)) continue;
        if (methodOf(operation) !== "GET") continue;
        if (lacking) ctx.session.recorder.skip(check, operation.operationId, lacking);
        else await run(ctx, operation);
      }
      if (enabled(ctx, "unknown_reference")) await unknownReferenceCheck(ctx, operation);
      if (enabled(ctx, "symbol_case")) await symbolCaseCheck(ctx, operation);
    } catch (error) {
      if (!(error instanceof PassStopped)) throw error;
      note = error.message;
      for (const check of BEHAVIOUR_CHECKS) ctx.session.recorder.skip(check, operation.operationId, note);
    }
    for (const check of BEHAVIOUR_CHECKS) {
      if (!appliesTo(check, operation))
        ctx.session.recorder.skip(check, operation.operationId, "no behaviour extension calls for it");
    }
    reportPass(ctx, mark, "behaviour", note);
  }
}

function appliesTo(check: (typeof BEHAVIOUR_CHECKS)[number], operation: ContractOperation): boolean {
  const b = operation.behaviour;
  const read = methodOf(operation) === "GET";
  switch (check) {
    case "list_order":
      return read && b.listOrder !== undefined;
    case "cursor_paging":
      return read && b.cursorPaging !== undefined;
    case "time_window":
      return read && b.timeWindow !== undefined;
    case "result_filter":
      return read && b.resultFilters !== undefined;
    case "limit_semantics":
      return read && b.limit !== undefined;
    case "unknown_reference":
      return b.unknownReferences !== undefined;
    case "symbol_case":
      return b.unknownReferences?.symbol !== undefined;
    case "cancel_race":
      return operation.operationId === "cancel_order" && b.unknownReferences?.order !== undefined;
    case "exchange_filters":
    case "order_arithmetic":
      return b.orderArithmetic !== undefined;
  }
}

/** The checks that place orders: exchange filters, then orders that really trade. */
async function tradingBehaviour(ctx: RunContext): Promise<void> {
  try {
    await exchangeFiltersPhase(ctx);
    await orderArithmeticPhase(ctx);
    await cancelRacePhase(ctx);
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    for (const check of ["exchange_filters", "order_arithmetic"] as const)
      ctx.session.recorder.skip(check, "new_order", error.message);
    ctx.session.recorder.skip("cancel_race", "cancel_order", error.message);
  }
}
