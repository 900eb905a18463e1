// The five checks run on every answer, whatever the request was for, in the order they depend on
// each other: the status must be documented before its content type, schema and headers can be.
import type { RoundTrip, Verdicts } from "../round-trip.js";
import { checkContentType } from "./content-type-conformance.js";
import { checkNotAServerError } from "./not-a-server-error.js";
import { checkResponseHeaders } from "./response-headers-conformance.js";
import { checkResponseSchema } from "./response-schema-conformance.js";
import { checkStatusCode } from "./status-code-conformance.js";

export function checkAnswer(exchange: RoundTrip, verdicts: Verdicts): void {
  checkNotAServerError(exchange, verdicts);
  const declared = checkStatusCode(exchange, verdicts);
  if (!declared) return;
  checkContentType(exchange, declared, verdicts);
  checkResponseSchema(exchange, declared, verdicts);
  checkResponseHeaders(exchange, declared, verdicts);
}
