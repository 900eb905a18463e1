// content_type_conformance: the Content-Type is one the spec documents for that status.
import type { ContractResponse } from "../core/operations.js";
import { undocumentedStatus } from "../kit/answers.js";
import type { RoundTrip, Verdicts } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "content_type_conformance";

export const contentTypeConformance: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "ctype",
  description: "the Content-Type is one the spec documents for that status",
  covers: [],
  hooks: [{ phase: "answer", judge: checkContentType }],
  seenToCatch: ["wrong-content-type"],
};

export function checkContentType(
  exchange: RoundTrip,
  declared: ContractResponse | undefined,
  verdicts: Verdicts,
): void {
  if (!declared) {
    verdicts.skip(CHECK, exchange.op.operationId, undocumentedStatus(exchange));
    return;
  }
  if (declared.contentTypes.length === 0) return;
  const response = exchange.response!;
  const mediaType = response.contentType.split(";")[0]!.trim().toLowerCase();
  const accepted = declared.contentTypes.some((ct) => mediaTypeMatches(ct.toLowerCase(), mediaType));
  if (accepted) verdicts.pass(CHECK, exchange);
  else {
    verdicts.fail(
      CHECK,
      exchange,
      response.contentType
        ? `Content-Type ${response.contentType} is not documented for status ${declared.status} (documented: ${declared.contentTypes.join(", ")})`
        : `no Content-Type header; documented for status ${declared.status}: ${declared.contentTypes.join(", ")}`,
    );
  }
}

function mediaTypeMatches(declared: string, actual: string): boolean {
  if (declared === actual || declared === "*/*") return true;
  const [type, subtype] = declared.split("/");
  return subtype === "*" && actual.startsWith(`${type}/`);
}
