// content_type_conformance: the Content-Type is one the spec documents for that status.
import type { ContractResponse } from "../operations.js";
import type { RoundTrip, Verdicts } from "../round-trip.js";
import type { ContractCheck } from "./check.js";

export const contentTypeConformance: ContractCheck = { name: "content_type_conformance", covers: [] };

export function checkContentType(exchange: RoundTrip, declared: ContractResponse, verdicts: Verdicts): void {
  if (declared.contentTypes.length === 0) return;
  const response = exchange.response!;
  const mediaType = response.contentType.split(";")[0]!.trim().toLowerCase();
  const accepted = declared.contentTypes.some((ct) => mediaTypeMatches(ct.toLowerCase(), mediaType));
  if (accepted) verdicts.pass("content_type_conformance", exchange);
  else {
    verdicts.fail(
      "content_type_conformance",
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
