/**
 * @marketapi/client: the typed fetch client of the spot trading API. `createSpotClient` returns an
 * openapi-fetch client with one method per operationId; requests follow the spec's wire rules and
 * are authenticated and signed per operation. Types are generated from the spec (src/generated).
 * `createApiClient` is the same runtime over any generated API, such as the output of
 * `marketapi-codegen --client` for a fork of the spec in a consumer's repository.
 */

export { type SpotApiTypes, spotApi } from "./generated/client.gen.js";
export { apiFacts, operationFacts } from "./generated/facts.gen.js";
export type {
  Item,
  LookedUp,
  ModeResult,
  NoParameters,
  OperationCode,
  OperationData,
  OperationError,
  OperationResult,
  ResultMode,
  SpotApiMethods,
  UnlistedCode,
} from "./generated/methods.gen.js";
export { authentication, type OperationId, operationTable } from "./generated/operations.gen.js";
export type * from "./generated/spot-api.gen.js";
export type { LookedUpResult, RetryEvent, RetryReason } from "./runtime/call-conduct.js";
export {
  LostRequestError,
  OutcomeUnknownError,
  RequestHeldError,
  RequestTimeoutError,
} from "./runtime/call-errors.js";
export type {
  ApiFacts,
  LookupFact,
  OperationFact,
  OperationFacts,
  PagingFact,
} from "./runtime/call-facts.js";
export {
  type ApiClient,
  type ApiClientOptions,
  type ApiDefinition,
  type ApiTypes,
  type AuthenticationTable,
  type CallOptions,
  createApiClient,
  type MethodsOf,
  type OperationTable,
  type OperationWire,
  type ResponseCheck,
  type SigningTable,
  type SigningTestVector,
  type Succeeded,
} from "./runtime/create-api-client.js";
export { createSpotClient, type SpotClient, type SpotClientOptions } from "./runtime/create-spot-client.js";
export { MissingCredentialsError } from "./runtime/missing-credentials-error.js";
export type { ParameterLocation, ParameterWire } from "./runtime/parameter-styles.js";
export { type RateLimits, rateLimitsOf } from "./runtime/rate-limits.js";
export type { BodyWire, PropertyEncoding } from "./runtime/request-body.js";
export { ResponseValidationError } from "./runtime/response-validation-error.js";
export type { RetryOptions } from "./runtime/retry-policy.js";
export type { BasicCredentials, Credential, SchemeWire } from "./runtime/security.js";
export { signPayload } from "./runtime/sign-payload.js";
export { SpotApiError } from "./runtime/spot-api-error.js";
export { SpotClientError } from "./runtime/spot-client-error.js";
export { formatDecimal } from "./runtime/wire-encoding.js";
