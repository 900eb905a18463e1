/**
 * The behaviour phase: first the checks whose hook is "trading-behaviour" (orders that really
 * trade), then, for every operation, each check whose hook is "behaviour" and that applies to it.
 * Nothing here names a check or an operation: the check modules say where they run.
 */

import { appliesTo, checksAt } from "../checks/index.js";
import type { ContractOperation } from "../core/operations.js";
import { unreachable } from "../kit/behaviour-support.js";
import { enabled, markPass, type RunContext, reportPass } from "../kit/context.js";
import { type MadeHistory, makeHistory } from "../kit/history.js";
import { PassStopped } from "../session/session.js";

export async function behaviourPhase(
  ctx: RunContext,
  operations: readonly ContractOperation[],
): Promise<void> {
  const phases = [...checksAt("behaviour"), ...checksAt("trading-behaviour"), ...checksAt("relation")];
  if (!phases.some((check) => enabled(ctx, check.name))) return;
  await tradingBehaviour(ctx, operations);
  const history = await historyFor(ctx, operations);
  try {
    await readBehaviour(ctx, operations);
    await onceEach(ctx, operations, "relation");
  } finally {
    await history.cleanUp();
  }
}

/** The history the read checks need, made first when the target is thin and trading is allowed. */
async function historyFor(ctx: RunContext, operations: readonly ContractOperation[]): Promise<MadeHistory> {
  const needing = checksAt("behaviour").filter(
    (check) => check.hook.needsHistory && enabled(ctx, check.name),
  );
  const wanted = operations.some((o) => needing.some((check) => appliesTo(check, o, ctx.session.model)));
  if (!wanted) return { cleanUp: async () => {} };
  try {
    return await makeHistory(ctx);
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    ctx.progress({ type: "stage", message: `history not made: ${error.message}` });
    return { cleanUp: async () => {} };
  }
}

async function readBehaviour(ctx: RunContext, operations: readonly ContractOperation[]): Promise<void> {
  const checks = checksAt("behaviour");
  for (const operation of operations) {
    const mark = markPass(ctx, operation.operationId);
    let note: string | undefined;
    try {
      const lacking = unreachable(ctx, operation);
      for (const check of checks) {
        if (!enabled(ctx, check.name) || !appliesTo(check, operation, ctx.session.model)) continue;
        if (lacking) ctx.session.recorder.skip(check.name, operation.operationId, lacking);
        else await check.hook.run(ctx, operation);
      }
    } catch (error) {
      if (!(error instanceof PassStopped)) throw error;
      note = error.message;
      for (const check of checks) ctx.session.recorder.skip(check.name, operation.operationId, note);
    }
    reportPass(ctx, mark, "behaviour", note);
  }
}

/** The checks that place orders: each once per run. */
async function tradingBehaviour(ctx: RunContext, operations: readonly ContractOperation[]): Promise<void> {
  await onceEach(ctx, operations, "trading-behaviour");
}

/**
 * The checks of a phase run once per run, in the order of CHECKS; when the run stops one (budget,
 * an operation that stopped answering), each is skipped on the operations it applies to.
 */
async function onceEach(
  ctx: RunContext,
  operations: readonly ContractOperation[],
  phase: "trading-behaviour" | "relation",
): Promise<void> {
  const checks = checksAt(phase);
  try {
    for (const check of checks) if (enabled(ctx, check.name)) await check.hook.run(ctx);
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    for (const check of checks)
      for (const operation of operations)
        if (appliesTo(check, operation, ctx.session.model))
          ctx.session.recorder.skip(check.name, operation.operationId, error.message);
  }
}
