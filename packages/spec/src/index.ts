/**
 * The bundled specs of marketapi: the OpenAPI 3.1 description of the spot trading API and the
 * JSON Schema (2020-12) of the FHIR Endpoint record. The files themselves are exported too:
 * `@marketapi/spec/openapi.json`, `@marketapi/spec/openapi.yaml`, `@marketapi/spec/endpoint.schema.json`;
 * and the reference server's sandbox document, `@marketapi/spec/sandbox.openapi.json`.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of the bundled OpenAPI document (JSON). */
export const openapiJsonPath: string = fileURLToPath(new URL("./openapi.json", import.meta.url));
/** Absolute path of the bundled OpenAPI document (YAML, as written by hand). */
export const openapiYamlPath: string = fileURLToPath(new URL("./openapi.yaml", import.meta.url));
/**
 * Absolute path of the reference server's sandbox document (JSON): the operations it serves beyond
 * the API's (account views, ...), one self-contained OpenAPI 3.1 document. Not part of the API's
 * contract.
 */
export const sandboxOpenapiJsonPath: string = fileURLToPath(
  new URL("./sandbox.openapi.json", import.meta.url),
);
/** Absolute path of the Endpoint record's JSON Schema. */
export const endpointSchemaPath: string = fileURLToPath(new URL("./endpoint.schema.json", import.meta.url));

/** The OpenAPI document, parsed. Each call returns a fresh copy, so callers may mutate it. */
export function loadOpenApi(): Record<string, unknown> {
  return JSON.parse(readFileSync(openapiJsonPath, "utf8"));
}

/** The sandbox document (see sandboxOpenapiJsonPath), parsed. Each call returns a fresh copy. */
export function loadSandboxOpenApi(): Record<string, unknown> {
  return JSON.parse(readFileSync(sandboxOpenapiJsonPath, "utf8"));
}

/** The Endpoint record's JSON Schema, parsed. Each call returns a fresh copy. */
export function loadEndpointSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(endpointSchemaPath, "utf8"));
}
