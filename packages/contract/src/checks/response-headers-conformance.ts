// response_headers_conformance: the documented response headers are present and match their schemas.
import type { ContractResponse, SchemaNode } from "../core/operations.js";
import { undocumentedStatus } from "../kit/answers.js";
import type { RoundTrip, Verdicts } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "response_headers_conformance";

export const responseHeadersConformance: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "headers",
  description: "documented response headers are present and match their schema",
  covers: [],
  hooks: [{ phase: "answer", judge: checkResponseHeaders }],
  seenToCatch: ["missing-weight-header", "weight-header-not-integer"],
};

export function checkResponseHeaders(
  exchange: RoundTrip,
  declared: ContractResponse | undefined,
  verdicts: Verdicts,
): void {
  if (!declared) {
    verdicts.skip(CHECK, exchange.op.operationId, undocumentedStatus(exchange));
    return;
  }
  if (declared.headers.length === 0) return;
  const response = exchange.response!;
  const problems: string[] = [];
  let firstHeader = "";
  for (const header of declared.headers) {
    const value = response.headers[header.name.toLowerCase()];
    const problem = value === undefined ? "is missing" : headerValueProblem(value, header.resolvedSchema);
    if (problem !== undefined) {
      if (!firstHeader) firstHeader = header.name;
      problems.push(`${header.name} ${problem}`);
    }
  }
  if (problems.length === 0) verdicts.pass(CHECK, exchange);
  else {
    verdicts.fail(CHECK, exchange, `response header ${problems.join("; ")}`, `headers/${firstHeader}`);
  }
}

/** Why a header's text does not match its schema, or undefined when it does. */
export function headerValueProblem(value: string, schema: SchemaNode): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const text = value.trim();
  let numeric: number | undefined;
  if (type === "integer") {
    if (!/^-?\d+$/.test(text)) return `is ${JSON.stringify(value)}, not an integer`;
    numeric = Number(text);
  } else if (type === "number") {
    if (!/^-?\d+(\.\d+)?$/.test(text)) return `is ${JSON.stringify(value)}, not a number`;
    numeric = Number(text);
  } else if (type === "boolean" && text !== "true" && text !== "false") {
    return `is ${JSON.stringify(value)}, not true or false`;
  }
  if (numeric !== undefined) {
    if (schema.minimum !== undefined && numeric < schema.minimum)
      return `is ${text}, below the minimum ${schema.minimum}`;
    if (schema.maximum !== undefined && numeric > schema.maximum)
      return `is ${text}, above the maximum ${schema.maximum}`;
  }
  if (schema.enum && !schema.enum.map(String).includes(text))
    return `is ${JSON.stringify(value)}, not one of ${schema.enum.join(", ")}`;
  if (schema.pattern && !new RegExp(schema.pattern, "u").test(text))
    return `is ${JSON.stringify(value)}, not matching ${schema.pattern}`;
  return undefined;
}
