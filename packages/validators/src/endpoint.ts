/**
 * @marketapi/validators/endpoint: the Endpoint record's validator alone, for code that needs
 * nothing of the trading API (it loads about a quarter of the package).
 */
import { check, type ValidationResult } from "./explain.js";
import { type Endpoint, endpointSchema } from "./generated/endpoint.gen.js";

export { check, type ValidationError, type ValidationResult } from "./explain.js";
export type * as EndpointTypes from "./generated/endpoint.gen.js";
export type { Endpoint } from "./generated/endpoint.gen.js";

/** Checks a FHIR Endpoint record (R4 structure; see @marketapi/spec/endpoint.schema.json). */
export function validateEndpoint(data: unknown): ValidationResult {
  return check(endpointSchema, data);
}

/** Whether `data` is a valid Endpoint record; narrows its type. */
export function isEndpoint(data: unknown): data is Endpoint {
  try {
    return endpointSchema.validate(data);
  } catch {
    return false;
  }
}
