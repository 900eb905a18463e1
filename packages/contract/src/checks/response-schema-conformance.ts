// response_schema_conformance: the body matches the documented schema, of the variant the request
// asks for where `x-response-variant-by` lets a parameter choose the shape.
import type { VariantShape } from "@marketapi/spec/model";
import { validateResponse } from "@marketapi/validators";
import type { ContractResponse } from "../core/operations.js";
import { undocumentedStatus } from "../kit/answers.js";
import { type RoundTrip, type Verdicts, variantOf } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "response_schema_conformance";

export const responseSchemaConformance: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "schema",
  description:
    "the body matches the documented schema (new_order: the variant newOrderRespType asks for, and no larger one)",
  covers: ["x-response-variant-by"],
  hooks: [{ phase: "answer", judge: checkResponseSchema }],
  seenToCatch: ["price-as-number", "resp-type-ignored", "resp-type-always-full"],
};

export function checkResponseSchema(
  exchange: RoundTrip,
  declared: ContractResponse | undefined,
  verdicts: Verdicts,
): void {
  if (!declared) {
    verdicts.skip(CHECK, exchange.op.operationId, undocumentedStatus(exchange));
    return;
  }
  const response = exchange.response!;
  if (!declared.contentTypes.some((ct) => /json/i.test(ct))) return;
  if (response.jsonError !== undefined) {
    verdicts.fail(CHECK, exchange, `the body is not JSON: ${response.jsonError}`);
    return;
  }
  const variant = response.status < 300 ? variantOf(exchange) : undefined;
  const result = validateResponse(
    exchange.op.operationId,
    response.status,
    response.json,
    variant !== undefined ? { variant } : {},
  );
  const larger =
    result.valid && variant !== undefined && exchange.op.responseVariants?.by === "value"
      ? largerVariantClaimed(exchange.op.responseVariants.shapes, variant, response.json)
      : undefined;
  if (larger) {
    verdicts.fail(
      CHECK,
      exchange,
      `${exchange.op.responseVariants?.parameter}=${variant} was asked for, and the answer is ${larger.variant}: it carries ${larger.markers.join(", ")}, which only ${larger.variant} (and larger variants) hold`,
    );
    return;
  }
  if (result.valid) {
    verdicts.pass(CHECK, exchange);
    return;
  }
  const first = result.errors[0]!;
  const more = result.errors.length > 1 ? ` (+${result.errors.length - 1} more)` : "";
  const schemaName =
    variant !== undefined ? ` (${exchange.op.responseVariants?.refs[variant] ?? variant})` : "";
  verdicts.fail(
    CHECK,
    exchange,
    `${first.message}${more}${schemaName}`,
    `${first.path || "/"} [${first.rule}]`,
  );
}

/**
 * The variant larger than `asked` that `body` claims by its shape (x-response-variant-by shapes,
 * most specific first: a variant's markers are the properties only it and larger ones require),
 * with the markers it carries; undefined when it claims `asked` or a smaller one. An answer larger
 * than asked passes its schema (extra properties are allowed), yet it is not the variant asked:
 * the parameter was not honoured. Pure.
 */
export function largerVariantClaimed(
  shapes: readonly VariantShape[],
  asked: string,
  body: unknown,
): { variant: string; markers: string[] } | undefined {
  const type = Array.isArray(body)
    ? "array"
    : typeof body === "object" && body !== null
      ? "object"
      : undefined;
  const askedAt = shapes.findIndex((shape) => shape.variant === asked);
  for (const [index, shape] of shapes.entries()) {
    if (index >= askedAt) return undefined;
    if (shape.type !== type) continue;
    const carried = shape.markers.filter((name) => Object.hasOwn(body as object, name));
    if (carried.length > 0 && shapes[askedAt]?.type === type)
      return { variant: shape.variant, markers: carried };
  }
  return undefined;
}
