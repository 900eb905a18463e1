/**
 * readable_errors: every error's `msg` is what the spec calls it, a human-readable message. It is
 * not empty, and it carries none of the marks of a message built from a value that was not there
 * (`undefined`, `NaN`, `[object Object]`, `<nil>`, a format verb left unfilled) or of an internal
 * failure shown to the client (a stack trace), unless the request itself carried that text. Every
 * error answer of the run is judged; the pass over each operation also sends it once without its
 * first required parameter, so that a run of this check alone meets errors too.
 */
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { cannotCall, enabled, type RunContext, targetValues } from "../kit/context.js";
import { errorAnswerProblems } from "../kit/error-text.js";
import { negativeCases } from "../kit/values.js";
import type { RoundTrip, Verdicts } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "readable_errors";

export const readableErrors: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "msg",
  description:
    "every error's msg is human-readable: not empty, and no undefined, NaN, [object Object] or stack trace the request did not carry",
  covers: [],
  hooks: [
    { phase: "answer", judge: (exchange, _declared, verdicts) => judgeErrorText(exchange, verdicts) },
    { phase: "operation", run: provokeError },
  ],
  seenToCatch: ["error-msg-names-undefined", "error-msg-empty"],
};

function judgeErrorText(exchange: RoundTrip, verdicts: Verdicts): void {
  const problems = errorAnswerProblems(exchange);
  if (!problems) return;
  if (problems.length === 0) verdicts.pass(CHECK, exchange);
  else verdicts.fail(CHECK, exchange, problems.join("; "));
}

/** The operation sent once without its first required parameter: an error answer to judge. */
async function provokeError(ctx: RunContext, operation: ContractOperation): Promise<void> {
  if (!enabled(ctx, CHECK)) return;
  const lacking = cannotCall(ctx, operation);
  if (lacking) {
    ctx.session.recorder.skip(CHECK, operation.operationId, lacking);
    return;
  }
  const missing = negativeCases(operation, encodeParams(operation, targetValues(operation, ctx))).find((c) =>
    c.rules?.includes("missing-parameter"),
  );
  if (missing)
    await ctx.session.call({ op: operation, params: missing.params }, `${CHECK}: ${missing.label}`);
}
