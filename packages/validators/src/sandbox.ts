/**
 * @marketapi/validators/sandbox: precompiled validators of the reference server's sandbox document
 * (`@marketapi/spec/sandbox.openapi.json`): the operations it serves beyond the API's contract
 * (account views, ...). The same functions, over tables generated the same way (src/generated/sandbox).
 */
import { createValidators } from "./api.js";
import {
  type OperationId,
  operations,
  type SchemaName,
  schemas,
} from "./generated/sandbox/validators.gen.js";

export type { ApiValidators, ParseResult, RequestOptions, ResponseOptions } from "./api.js";
export type { ValidationError, ValidationResult } from "./explain.js";
export {
  type OperationId as SandboxOperationId,
  operationIds as sandboxOperationIds,
  type SchemaName as SandboxSchemaName,
  schemaNames as sandboxSchemaNames,
} from "./generated/sandbox/validators.gen.js";

const api = createValidators<OperationId, SchemaName>({ operations, schemas });

/** Checks the parameters of a sandbox operation (decoded values, or text with `{ from: "query" }`). */
export const validateRequest: typeof api.validateRequest = api.validateRequest;
/** Decodes query-string or form-body text into typed parameters and checks them. */
export const parseRequest: typeof api.parseRequest = api.parseRequest;
/** Checks a sandbox answer against the schema documented for its status. */
export const validateResponse: typeof api.validateResponse = api.validateResponse;
/** Checks a value against one of the sandbox document's named schemas. */
export const validateSchema: typeof api.validateSchema = api.validateSchema;
/** The validator of one response, resolved once. */
export const responseValidator: typeof api.responseValidator = api.responseValidator;
