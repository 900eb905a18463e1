/**
 * The status and code the spec names for a refusal (x-refusals), for the checks that provoke one:
 * negative data, exchange filters, unknown API keys, the exploration. Where the spec names none,
 * any 4xx with the error body is the refusal.
 */
import { type RefusalRuleName, refusalFor } from "@marketapi/spec/model";
import type { RefusalExpectation, RunContext } from "./context.js";
import type { TextCase } from "./values.js";

/** What a refusal of `rule` on `operationId` (for `parameter`) must carry. */
export function refusalOf(
  ctx: RunContext,
  rule: RefusalRuleName | undefined,
  operationId: string,
  parameter?: string,
): Pick<RefusalExpectation, "code" | "status"> {
  if (rule === undefined) return {};
  const named = refusalFor(ctx.session.model.refusals, rule, operationId, parameter);
  return named ? { code: named.code, status: named.status } : {};
}

/**
 * The expectation of a negative case: what it breaks, with the codes the spec names for the rules
 * it breaks (a value above recvWindow's maximum is x-signing's own rule).
 */
export function negativeExpectation(ctx: RunContext, operationId: string, c: TextCase): RefusalExpectation {
  const signing = ctx.session.model.signing;
  const rules =
    c.parameter === signing.recvWindowParameter && c.breaks === "above maximum"
      ? (["recv-window-too-large"] as const)
      : (c.rules ?? []);
  const named = rules
    .map((rule) => refusalOf(ctx, rule, operationId, c.parameter))
    .filter((r) => r.code !== undefined);
  const what = c.label.replace(/^negative: /, "");
  const [first, ...others] = named;
  if (!first) return { what };
  return { what, ...first, ...(others.length > 0 ? { orCodes: others.map((o) => o.code!) } : {}) };
}
