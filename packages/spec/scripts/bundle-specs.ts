import { parse } from "yaml";

/** A file a generator emits, relative to its output folder. */
export interface GeneratedFile {
  path: string;
  contents: string;
}

export interface SpecSources {
  /** Text of specs/spot-api.openapi.yaml. */
  openapiYaml: string;
  /** Text of specs/endpoint.schema.json. */
  endpointSchemaJson: string;
}

/** Thrown when a source document is not what the bundle expects; names the file and the fault. */
export class SpecSourceError extends Error {
  override name = "SpecSourceError";
}

/**
 * Turns the two hand-written documents into the published files: the OpenAPI document as YAML
 * (verbatim, comments kept) and JSON, and the Endpoint schema as JSON.
 */
export function bundleSpecs(sources: SpecSources): GeneratedFile[] {
  const openapi = parseOpenApi(sources.openapiYaml);
  const endpointSchema = parseEndpointSchema(sources.endpointSchemaJson);
  return [
    { path: "openapi.yaml", contents: sources.openapiYaml },
    { path: "openapi.json", contents: `${JSON.stringify(openapi, null, 2)}\n` },
    { path: "endpoint.schema.json", contents: `${JSON.stringify(endpointSchema, null, 2)}\n` },
  ];
}

function parseOpenApi(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: true });
  } catch (error) {
    throw new SpecSourceError(`specs/spot-api.openapi.yaml: not valid YAML: ${(error as Error).message}`);
  }
  if (!isObject(doc) || typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.1.")) {
    const found = isObject(doc) ? JSON.stringify(doc.openapi) : typeof doc;
    throw new SpecSourceError(
      `specs/spot-api.openapi.yaml: expected "openapi: 3.1.x" at /openapi, found ${found}`,
    );
  }
  return doc;
}

function parseEndpointSchema(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new SpecSourceError(`specs/endpoint.schema.json: not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(doc) || doc.$schema !== "https://json-schema.org/draft/2020-12/schema") {
    throw new SpecSourceError(
      'specs/endpoint.schema.json: expected "$schema": "https://json-schema.org/draft/2020-12/schema" at /$schema',
    );
  }
  return doc;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
