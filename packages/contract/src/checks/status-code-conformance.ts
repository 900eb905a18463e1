// status_code_conformance: every status code is documented for the operation.
import { type ContractResponse, methodOf } from "../core/operations.js";
import type { RoundTrip, Verdicts } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "status_code_conformance";

export const statusCodeConformance: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "status",
  description: "every status code is documented for the operation",
  covers: [],
  hooks: [{ phase: "answer", judge: checkStatusCode }],
  seenToCatch: ["created-201"],
};

export function checkStatusCode(
  exchange: RoundTrip,
  declared: ContractResponse | undefined,
  verdicts: Verdicts,
): void {
  if (declared) {
    verdicts.pass(CHECK, exchange);
    return;
  }
  const op = exchange.op;
  const documented = op.responses.map((r) => r.status).join(", ");
  verdicts.fail(
    CHECK,
    exchange,
    `status ${exchange.response!.status} is not documented for ${methodOf(op)} ${op.path} (documented: ${documented})`,
  );
}
