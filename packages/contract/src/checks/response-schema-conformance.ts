// response_schema_conformance: the body matches the documented schema, of the variant the request
// asks for where `x-response-variant-by` lets a parameter choose the shape.
import { validateResponse } from "@marketapi/validators";
import type { ContractResponse } from "../core/operations.js";
import { undocumentedStatus } from "../kit/answers.js";
import { type RoundTrip, type Verdicts, variantOf } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "response_schema_conformance";

export const responseSchemaConformance: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "schema",
  description: "the body matches the documented schema (new_order: the variant newOrderRespType asks for)",
  covers: ["x-response-variant-by"],
  hooks: [{ phase: "answer", judge: checkResponseSchema }],
  seenToCatch: ["price-as-number", "resp-type-ignored"],
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
