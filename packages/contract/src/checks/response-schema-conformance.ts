// response_schema_conformance: the body matches the documented schema, of the variant the request
// asks for where `x-response-variant-by` lets a parameter choose the shape.
import { validateResponse } from "@marketapi/validators";
import type { ContractResponse } from "../operations.js";
import { paramValue, type RoundTrip, type Verdicts } from "../round-trip.js";
import type { ContractCheck } from "./check.js";

export const responseSchemaConformance: ContractCheck = {
  name: "response_schema_conformance",
  covers: ["x-response-variant-by"],
};

/** The response variant the request asks for (x-response-variant-by), or the declared default. */
export function variantOf(exchange: RoundTrip): string | undefined {
  const by = exchange.op.responseVariants;
  if (!by) return undefined;
  const asked = paramValue(exchange.plan.params, by.parameter);
  if (by.by === "presence") return asked === undefined ? "absent" : "present";
  if (asked === undefined) return by.default;
  return Object.hasOwn(by.refs, asked) ? asked : undefined;
}

export function checkResponseSchema(
  exchange: RoundTrip,
  declared: ContractResponse,
  verdicts: Verdicts,
): void {
  const response = exchange.response!;
  if (!declared.contentTypes.some((ct) => /json/i.test(ct))) return;
  if (response.jsonError !== undefined) {
    verdicts.fail("response_schema_conformance", exchange, `the body is not JSON: ${response.jsonError}`);
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
    verdicts.pass("response_schema_conformance", exchange);
    return;
  }
  const first = result.errors[0]!;
  const more = result.errors.length > 1 ? ` (+${result.errors.length - 1} more)` : "";
  const schemaName =
    variant !== undefined ? ` (${exchange.op.responseVariants?.refs[variant] ?? variant})` : "";
  verdicts.fail(
    "response_schema_conformance",
    exchange,
    `${first.message}${more}${schemaName}`,
    `${first.path || "/"} [${first.rule}]`,
  );
}
