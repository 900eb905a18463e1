/**
 * defaults_honoured: a declared `default` of a count parameter (`limit`) must be what the server
 * applies when the parameter is absent, and an explicit value must override it (a default is
 * meaningless when `limit` is ignored). To know whether enough items exist, the maximum is asked
 * for first: depth without `limit` must return 100 levels when limit=5000 returns at least 100.
 */
import { validateResponse } from "@marketapi/validators";
import type { ContractOperation, ContractParameter } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { describeAnswer, isRateLimited, itemCounts, ok } from "../kit/answers.js";
import { cannotCall, enabled, type RunContext } from "../kit/context.js";
import { requiredValues } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "defaults_honoured";

export const defaultsHonoured: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "defaults",
  description: "declared defaults apply when a parameter is absent, explicit limits override them",
  covers: [],
  hooks: [
    { phase: "operation", run: defaultsProbe },
    {
      phase: "trading",
      run: {
        resting: (desk, resting) => {
          if (resting.withoutVariant) judgeDefaultVariant(desk.ctx, resting.withoutVariant);
        },
        finish: (ctx, operation) => {
          if (!operation.responseVariants) noDeclaredDefault(ctx, operation);
        },
      },
    },
  ],
  seenToCatch: ["wrong-default-depth", "limit-ignored"],
};

function countParameter(operation: ContractOperation): ContractParameter | undefined {
  return operation.parameters.find(
    (p) => p.name === "limit" && (p.resolvedSchema.type === "integer" || p.resolvedSchema.type === "number"),
  );
}

/** Records why an operation without a count parameter has nothing for defaults_honoured. */
function noDeclaredDefault(ctx: RunContext, operation: ContractOperation): void {
  const declared = operation.parameters.filter(
    (p) => p.resolvedSchema.default !== undefined && p.name !== operation.responseVariants?.parameter,
  );
  ctx.session.recorder.skip(
    CHECK,
    operation.operationId,
    declared.length > 0
      ? `the defaults of ${declared.map((p) => p.name).join(", ")} are not observable`
      : "no declared default",
  );
}

async function defaultsProbe(ctx: RunContext, operation: ContractOperation): Promise<void> {
  if (!enabled(ctx, CHECK)) return;
  const { session } = ctx;
  const recorder = session.recorder;
  const lacking = cannotCall(ctx, operation);
  if (lacking) {
    recorder.skip(CHECK, operation.operationId, lacking);
    return;
  }
  const limit = countParameter(operation);
  if (!limit) {
    noDeclaredDefault(ctx, operation);
    return;
  }
  const base = requiredValues(operation, ctx.values);
  const call = (value: number | undefined, label: string) =>
    session.call({ op: operation, params: encodeParams(operation, { ...base, [limit.name]: value }) }, label);
  const usable = (
    exchange: Awaited<ReturnType<typeof call>>,
    what: string,
  ): Record<string, number> | undefined => {
    if (isRateLimited(exchange)) {
      recorder.skip(CHECK, operation.operationId, `rate limited during ${what}`);
      return undefined;
    }
    if (!ok(exchange)) {
      session.fail(
        CHECK,
        exchange,
        `${what} was refused (${describeAnswer(exchange)}); it is a valid request`,
      );
      return undefined;
    }
    const counts = itemCounts(exchange.response?.json);
    if (!counts) recorder.skip(CHECK, operation.operationId, `the answer to ${what} has no list to count`);
    return counts;
  };

  const maximum = limit.resolvedSchema.maximum;
  const declaredDefault =
    typeof limit.resolvedSchema.default === "number" ? limit.resolvedSchema.default : undefined;
  const minimum = limit.resolvedSchema.minimum ?? 1;
  const small = Math.max(minimum, Math.min(5, (declaredDefault ?? 6) - 1));

  let available: Record<string, number> | undefined;
  if (maximum !== undefined) {
    const most = await call(maximum, `defaults: ${limit.name}=${maximum} (how many items exist)`);
    available = usable(most, `${limit.name}=${maximum}`);
    if (!available) return;
  }

  if (declaredDefault !== undefined && available) {
    const none = await call(undefined, `defaults: no ${limit.name} (default ${declaredDefault})`);
    const counts = usable(none, `the request without ${limit.name}`);
    if (counts) {
      const problems: string[] = [];
      const notes: string[] = [];
      for (const [key, most] of Object.entries(available)) {
        const got = counts[key] ?? 0;
        const expected = Math.min(most, declaredDefault);
        // Below the default, a live list may grow between the two requests.
        const fine = got === expected || (most < declaredDefault && got >= most && got <= declaredDefault);
        if (!fine) {
          problems.push(
            `${key}: ${got} items without ${limit.name}, expected ${expected} (declared default ${declaredDefault}; ${limit.name}=${maximum} gave ${most})`,
          );
        }
        if (most < declaredDefault) {
          notes.push(`only ${most} ${key} exist, so the default ${declaredDefault} is not fully observable`);
        }
      }
      if (problems.length > 0) session.fail(CHECK, none, problems.join("; "));
      else session.pass(CHECK, none);
      for (const note of notes) recorder.note(CHECK, operation.operationId, note);
    }
  }

  const few = await call(small, `defaults: ${limit.name}=${small} (explicit value overrides the default)`);
  const counts = usable(few, `${limit.name}=${small}`);
  if (counts) {
    const problems = Object.entries(counts)
      .filter(
        ([key, got]) =>
          got > small || (available !== undefined && got !== Math.min(small, available[key] ?? got)),
      )
      .map(([key, got]) => `${key}: ${got} items for ${limit.name}=${small}`);
    if (problems.length > 0)
      session.fail(CHECK, few, `${limit.name} is not honoured: ${problems.join("; ")}`);
    else session.pass(CHECK, few);
  }
}

/**
 * The answer to new_order sent without the parameter that picks the response variant
 * (x-response-variant-by) must be the declared default variant.
 */
function judgeDefaultVariant(ctx: RunContext, exchange: RoundTrip): void {
  const variant = exchange.op.responseVariants?.default;
  if (variant === undefined || !enabled(ctx, CHECK)) return;
  const { session } = ctx;
  if (!ok(exchange)) {
    session.recorder.skip(
      CHECK,
      exchange.op.operationId,
      `the order without ${exchange.op.responseVariants?.parameter} was refused (${describeAnswer(exchange)})`,
    );
    return;
  }
  const result = validateResponse(
    exchange.op.operationId,
    exchange.response!.status,
    exchange.response!.json,
    {
      variant,
    },
  );
  if (result.valid) session.pass(CHECK, exchange);
  else {
    const first = result.errors[0]!;
    session.fail(
      CHECK,
      exchange,
      `without ${exchange.op.responseVariants?.parameter} the answer is not the declared default ${variant}: ${first.message}`,
      `${first.path || "/"} [${first.rule}]`,
    );
  }
}
