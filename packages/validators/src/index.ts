/**
 * @marketapi/validators: precompiled validators for the FHIR Endpoint record and for every
 * request and response of the spot trading API. The validation code was generated ahead of time
 * by ajv (see src/generated); nothing is compiled, evaluated or required at run time.
 */
import { createValidators } from "./api.js";
import { type OperationId, operations, type SchemaName, schemas } from "./generated/validators.gen.js";

export {
  type ApiTables,
  type ApiValidators,
  createValidators,
  type ParseResult,
  type RequestOptions,
  type ResponseOptions,
} from "./api.js";
export type { ParameterText } from "./decode.js";
export { type Endpoint, type EndpointTypes, isEndpoint, validateEndpoint } from "./endpoint.js";
export { check, type ValidationError, type ValidationResult } from "./explain.js";
export { type OperationId, operationIds, type SchemaName, schemaNames } from "./generated/validators.gen.js";
export type { CompiledSchema, OperationValidators } from "./generated/validators-runtime.gen.js";

const api = createValidators<OperationId, SchemaName>({ operations, schemas });

/**
 * Checks the parameters of an operation: `validateRequest("order_book", { symbol: "BTCUSDT", limit: 5 })`.
 * With `{ from: "query" }`, `params` is text as a server receives it ("symbol=BTCUSDT&limit=5").
 */
export const validateRequest: typeof api.validateRequest = api.validateRequest;
/** Decodes query-string or form-body text into typed parameters and checks them. */
export const parseRequest: typeof api.parseRequest = api.parseRequest;
/** Checks a response body against the schema documented for its status (exact, "4XX", default). */
export const validateResponse: typeof api.validateResponse = api.validateResponse;
/** Checks a value against one of the spec's named schemas (components.schemas). */
export const validateSchema: typeof api.validateSchema = api.validateSchema;
/**
 * The validator of one response, resolved once: `const check = responseValidator("new_order", 200,
 * { variant: "FULL" }); check(body)`. For validating many bodies of the same kind.
 */
export const responseValidator: typeof api.responseValidator = api.responseValidator;
