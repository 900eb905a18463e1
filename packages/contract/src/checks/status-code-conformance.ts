// status_code_conformance: every status code is documented for the operation.
import { type ContractResponse, declaredResponse, methodOf } from "../operations.js";
import type { RoundTrip, Verdicts } from "../round-trip.js";
import type { ContractCheck } from "./check.js";

export const statusCodeConformance: ContractCheck = { name: "status_code_conformance", covers: [] };

/**
 * The declared response the answer's status falls under; when there is none, the checks that
 * compare against it are skipped for the operation.
 */
export function checkStatusCode(exchange: RoundTrip, verdicts: Verdicts): ContractResponse | undefined {
  const response = exchange.response!;
  const op = exchange.op;
  const declared = declaredResponse(op, response.status);
  if (declared) {
    verdicts.pass("status_code_conformance", exchange);
    return declared;
  }
  const documented = op.responses.map((r) => r.status).join(", ");
  verdicts.fail(
    "status_code_conformance",
    exchange,
    `status ${response.status} is not documented for ${methodOf(op)} ${op.path} (documented: ${documented})`,
  );
  const reason = `status ${response.status} is undocumented, so there is nothing to compare against`;
  verdicts.skip("content_type_conformance", op.operationId, reason);
  verdicts.skip("response_schema_conformance", op.operationId, reason);
  verdicts.skip("response_headers_conformance", op.operationId, reason);
  return undefined;
}
