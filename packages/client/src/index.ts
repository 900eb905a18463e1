/**
 * @marketapi/client: the typed fetch client of the spot trading API. `createSpotClient` returns an
 * openapi-fetch client with one method per operationId; requests follow the spec's wire rules and
 * are authenticated and signed per operation. Types are generated from the spec (src/generated).
 */

export type {
  NoParameters,
  OperationData,
  OperationError,
  OperationResult,
  SpotApiMethods,
} from "./generated/methods.gen.js";
export { type OperationId, operationTable } from "./generated/operations.gen.js";
export type * from "./generated/spot-api.gen.js";
export {
  type CallOptions,
  createSpotClient,
  type ResponseCheck,
  type SpotClient,
  type SpotClientOptions,
  type Succeeded,
  type ThrowingMethods,
} from "./runtime/create-spot-client.js";
export { MissingCredentialsError } from "./runtime/missing-credentials-error.js";
export { type RateLimits, rateLimitsOf } from "./runtime/rate-limits.js";
export { ResponseValidationError } from "./runtime/response-validation-error.js";
export { signPayload } from "./runtime/sign-payload.js";
export { SpotApiError } from "./runtime/spot-api-error.js";
export { SpotClientError } from "./runtime/spot-client-error.js";
export { formatDecimal } from "./runtime/wire-encoding.js";
