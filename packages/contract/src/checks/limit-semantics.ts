/**
 * limit_semantics (x-limit): a small limit cuts every counted list to it; without the parameter
 * the answer holds the default (or everything there is, when less); above the maximum the request
 * is truncated to the maximum or refused, exactly as the spec says.
 */

import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { fetchServed, isRead, listAt, valuesFor } from "../kit/behaviour-support.js";
import { expectRefusal, type RunContext } from "../kit/context.js";
import type { ContractCheck } from "./check.js";

const CHECK = "limit_semantics";

export const limitSemantics: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "limit",
  description: "limit cuts, defaults, and above the maximum truncates or refuses as x-limit states",
  covers: ["x-limit"],
  hooks: [{ phase: "behaviour", run: limitSemanticsCheck, needsHistory: true }],
  appliesTo: (operation) => isRead(operation) && operation.behaviour.limit !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: ["depth-limit-above-max-refused", "trades-default-10", "limit-of-one-served-as-two"],
};
const SMALL = 2;

/**
 * The small limits sent: the parameter's minimum (its schema's `minimum`, the edge an off-by-one
 * cut shows at) where it is below SMALL, then SMALL.
 */
export function smallLimits(operation: ContractOperation, parameter: string): number[] {
  const minimum = operation.parameters.find((p) => p.name === parameter)?.resolvedSchema.minimum;
  return typeof minimum === "number" && minimum >= 1 && minimum < SMALL ? [minimum, SMALL] : [SMALL];
}

const counts = (json: unknown, pointers: readonly string[]) =>
  pointers.map((p) => ({ list: p || "the answer", count: listAt(json, p)?.length ?? 0 }));

export async function limitSemanticsCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const rule = operation.behaviour.limit;
  if (!rule) return;
  const { session } = ctx;
  const smalls = smallLimits(operation, rule.parameter);
  const small = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [rule.parameter]: SMALL }),
    `limit: ${rule.parameter}=${SMALL}`,
  );
  const smallest =
    smalls.length > 1
      ? await fetchServed(
          ctx,
          CHECK,
          operation,
          valuesFor(ctx, operation, { [rule.parameter]: smalls[0] }),
          `limit: ${rule.parameter}=${smalls[0]} (the minimum)`,
        )
      : undefined;
  const bigger = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [rule.parameter]: rule.maximum }),
    `limit: ${rule.parameter}=${rule.maximum} (the maximum)`,
  );
  const absent = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation),
    `limit: no ${rule.parameter} (default ${rule.default})`,
  );
  if (!small || !bigger || !absent) return;
  const available = counts(bigger.json, rule.counts);

  for (const [limit, read] of [
    [SMALL, small],
    [smalls[0], smallest],
  ] as const) {
    if (!read || limit === undefined) continue;
    for (const [i, c] of counts(read.json, rule.counts).entries()) {
      const want = Math.min(limit, available[i]!.count);
      if (c.count === want) session.pass(CHECK, read.exchange);
      else
        session.fail(
          CHECK,
          read.exchange,
          `${rule.parameter}=${limit}: ${c.list} holds ${c.count} items; want ${want} (x-limit)`,
        );
    }
  }
  // Items may arrive between the requests: when the default page holds more than the full one
  // did, the full page is read again, and any count between the two readings is judged right.
  const absentCounts = counts(absent.json, rule.counts);
  const grew = absentCounts.some((c, i) => c.count > Math.min(rule.default, available[i]!.count));
  const after = grew
    ? await fetchServed(
        ctx,
        CHECK,
        operation,
        valuesFor(ctx, operation, { [rule.parameter]: rule.maximum }),
        `limit: ${rule.parameter}=${rule.maximum} again (items arrived)`,
      )
    : undefined;
  const availableAfter = after ? counts(after.json, rule.counts) : available;
  for (const [i, c] of absentCounts.entries()) {
    const want = Math.min(rule.default, available[i]!.count);
    const wantAfter = Math.min(rule.default, availableAfter[i]?.count ?? available[i]!.count);
    if (available[i]!.count < rule.default)
      session.recorder.note(
        CHECK,
        operation.operationId,
        `${c.list}: only ${available[i]!.count} items exist, fewer than the default ${rule.parameter}=${rule.default}; a default cut below ${available[i]!.count} is caught, one between is not observable (making ${rule.default + 1} items is not cheap)`,
      );
    // Items may arrive between the requests; a default page can only be judged against a full one.
    if (
      (c.count >= want && c.count <= wantAfter) ||
      (available[i]!.count >= rule.default && c.count === rule.default)
    )
      session.pass(CHECK, absent.exchange);
    else
      session.fail(
        CHECK,
        absent.exchange,
        `without ${rule.parameter}: ${c.list} holds ${c.count} items; the default is ${rule.default} and ${available[i]!.count} exist${wantAfter !== want ? ` (${availableAfter[i]?.count} when read again)` : ""} (x-limit)`,
      );
  }

  const above = rule.maximum + 1;
  const values = valuesFor(ctx, operation, { [rule.parameter]: above });
  if (rule.aboveMaximum === "refuse") {
    const exchange = await session.call(
      { op: operation, params: encodeParams(operation, values) },
      `limit: ${rule.parameter}=${above} (above the maximum)`,
    );
    expectRefusal(ctx, CHECK, exchange, {
      what: `${rule.parameter}=${above}, above the maximum ${rule.maximum} (x-limit: refuse)`,
    });
    return;
  }
  const truncated = await fetchServed(
    ctx,
    CHECK,
    operation,
    values,
    `limit: ${rule.parameter}=${above} (above the maximum: truncated)`,
  );
  if (!truncated) return;
  const over = counts(truncated.json, rule.counts).filter((c) => c.count > rule.maximum);
  if (over.length === 0) session.pass(CHECK, truncated.exchange);
  else
    session.fail(
      CHECK,
      truncated.exchange,
      `${rule.parameter}=${above}: ${over.map((c) => `${c.list} holds ${c.count}`).join(", ")}; x-limit says it is truncated to ${rule.maximum}`,
    );
}
