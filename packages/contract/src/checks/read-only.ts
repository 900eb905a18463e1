/**
 * The pass over one operation that does not change state: its examples and boundary values
 * (checked by the response-level checks), negative data, auth probes and declared defaults.
 */
import { encodeParams } from "../http/request.js";
import { isSigned, type OperationModel, requiresApiKey } from "../operations.js";
import { RESPONSE_CHECKS } from "../results.js";
import { boundaryCases, exampleCases, negativeCases, requiredValues, type Values } from "../values.js";
import { authProbes } from "./auth.js";
import { enabled, expectRefusal, type RunContext, tolerated } from "./context.js";
import { defaultsProbe } from "./defaults.js";

export async function readOnlyPass(ctx: RunContext, operation: OperationModel): Promise<void> {
  const { session } = ctx;
  const recorder = session.recorder;
  const lacking =
    isSigned(operation) && !session.canSign
      ? "signed operation: needs --api-key and --api-secret"
      : requiresApiKey(operation) && !session.credentials
        ? `x-auth-class ${operation.authClass}: needs --api-key`
        : undefined;

  if (lacking) {
    for (const check of [...RESPONSE_CHECKS, "negative_data_rejection", "defaults_honoured"] as const) {
      recorder.skip(check, operation.id, lacking);
    }
  } else {
    if (RESPONSE_CHECKS.some((check) => enabled(ctx, check))) {
      for (const c of [...exampleCases(operation, ctx.values), ...boundaryCases(operation, ctx.values)]) {
        await session.call({ op: operation, params: encodeParams(operation, c.values) }, c.label);
      }
    }
    await negativePass(ctx, operation);
    await defaultsProbe(ctx, operation);
  }
  if (!isSigned(operation) || session.canSign) {
    await authProbes(ctx, operation, {
      params: () => encodeParams(operation, targetValues(operation, ctx)),
      control: "before",
    });
  } else {
    recorder.skip("auth_enforcement", operation.id, lacking ?? "needs credentials");
  }
}

/** The required parameters plus the known order, for operations that look an order up. */
function targetValues(operation: OperationModel, ctx: RunContext): Values {
  const values = requiredValues(operation, ctx.values);
  if (operation.parameters.some((p) => p.name === "orderId") && ctx.values.orderId !== undefined) {
    values.orderId = ctx.values.orderId;
  }
  return values;
}

export async function negativePass(ctx: RunContext, operation: OperationModel): Promise<void> {
  if (!enabled(ctx, "negative_data_rejection")) return;
  const cases = negativeCases(operation, encodeParams(operation, targetValues(operation, ctx)));
  if (cases.length === 0) {
    ctx.session.recorder.skip("negative_data_rejection", operation.id, "no parameters to violate");
    return;
  }
  for (const c of cases) {
    if (tolerated(ctx, operation, c)) continue;
    const exchange = await ctx.session.call({ op: operation, params: c.params }, c.label);
    expectRefusal(ctx, "negative_data_rejection", exchange, { what: c.label.replace(/^negative: /, "") });
  }
}
