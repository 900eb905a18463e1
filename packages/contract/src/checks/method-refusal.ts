/**
 * method_refusal: a path answers only the methods the spec lists for it. The same target is read
 * with the operation's own method, then at once with a method its path does not list: that one is
 * refused (a 4xx, or 501 for a method the target does not implement at all), never served. A
 * target that routes by path alone, or keeps answers by URL whatever the method, serves it.
 * Run on the reads that need no key (a key or signature would let a refusal for those pass).
 */

import { type ContractModel, type ContractOperation, isSigned, methodOf } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { describeAnswer } from "../kit/answers.js";
import { unreachable, valuesFor } from "../kit/behaviour-support.js";
import type { RunContext } from "../kit/context.js";
import type { ContractCheck } from "./check.js";

const CHECK = "method_refusal";

export const methodRefusal: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "method",
  description:
    "a method the spec does not list for a path is refused (4xx or 501), even right after the same target was served",
  covers: [],
  hooks: [{ phase: "behaviour", run: methodRefusalCheck, needsHistory: false }],
  appliesTo: (operation) => !isSigned(operation) && methodOf(operation) === "GET",
  notApplicable: "signed, or not a read",
  seenToCatch: ["method-ignored-depth"],
};

/** Methods tried when the API uses no other method than its path's: the first one unlisted is sent. */
const PROBED_METHODS = ["POST", "DELETE", "PUT", "PATCH"] as const;

/**
 * A method the spec lists for no operation on this operation's path, if any is left: first one
 * the API uses on another path (a target may refuse a method it never serves before it routes,
 * which would hide a path that answers any method it does serve), then any other.
 */
export function unlistedMethod(
  model: Pick<ContractModel, "operations">,
  operation: Pick<ContractOperation, "path">,
): string | undefined {
  const listed = new Set(model.operations.filter((o) => o.path === operation.path).map(methodOf));
  const used = [...new Set(model.operations.map(methodOf))];
  return [...used, ...PROBED_METHODS].find((method) => !listed.has(method));
}

/** What is wrong with the answer to an unlisted method, by its status; undefined when it was refused. */
export function unlistedMethodProblem(status: number): string | undefined {
  if ((status >= 400 && status < 500) || status === 501) return undefined;
  if (status < 400) return `was served (status ${status}); expected a refusal (4xx, or 501)`;
  return `got a server error (status ${status}); expected a refusal (4xx, or 501)`;
}

export async function methodRefusalCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  if (isSigned(operation) || methodOf(operation) !== "GET") return;
  const method = unlistedMethod(ctx.session.model, operation);
  if (!method) {
    ctx.session.recorder.skip(CHECK, operation.operationId, "its path lists every method probed");
    return;
  }
  const lacking = unreachable(ctx, operation);
  if (lacking) {
    ctx.session.recorder.skip(CHECK, operation.operationId, lacking);
    return;
  }
  const params = encodeParams(operation, valuesFor(ctx, operation));
  // Served first, so that a target keeping answers by URL has this one to give.
  await ctx.session.call({ op: operation, params }, "method: the read as listed");
  const exchange = await ctx.session.call(
    { op: operation, params, wire: { method } },
    `method: ${method} ${operation.path}`,
    { responseChecks: false },
  );
  if (!exchange.response) {
    ctx.session.recorder.skip(CHECK, operation.operationId, `no answer to ${method} ${operation.path}`);
    return;
  }
  const problem = unlistedMethodProblem(exchange.response.status);
  if (problem) {
    ctx.session.fail(
      CHECK,
      exchange,
      `${method} ${operation.path} (a method the spec does not list for the path) ${problem}: ${describeAnswer(exchange)}`,
    );
  } else ctx.session.pass(CHECK, exchange);
}
