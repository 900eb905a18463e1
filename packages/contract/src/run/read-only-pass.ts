/**
 * The pass over one operation that does not change state: its examples and boundary values
 * (checked by the response-level checks), negative data, auth probes and declared defaults.
 */
import { authProbes } from "../checks/auth-enforcement.js";
import { enabled, type RunContext } from "../checks/context.js";
import { defaultsProbe } from "../checks/defaults-honoured.js";
import { negativePass, targetValues } from "../checks/negative-data-rejection.js";
import { encodeParams } from "../http/request.js";
import { type ContractOperation, isSigned, requiresApiKey } from "../operations.js";
import { RESPONSE_CHECKS } from "../results.js";
import { boundaryCases, exampleCases } from "../values.js";

export async function readOnlyPass(ctx: RunContext, operation: ContractOperation): Promise<void> {
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
      recorder.skip(check, operation.operationId, lacking);
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
    recorder.skip("auth_enforcement", operation.operationId, lacking ?? "needs credentials");
  }
}
