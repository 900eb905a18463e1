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

function parseOpenApi(text: string, file = "specs/spot-api.openapi.yaml"): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: true });
  } catch (error) {
    throw new SpecSourceError(`${file}: not valid YAML: ${(error as Error).message}`);
  }
  if (!isObject(doc) || typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.1.")) {
    const found = isObject(doc) ? JSON.stringify(doc.openapi) : typeof doc;
    throw new SpecSourceError(`${file}: expected "openapi: 3.1.x" at /openapi, found ${found}`);
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

/** The file name the sandbox document refers to the API's document by. */
const API_DOCUMENT = "spot-api.openapi.yaml";
const COMPONENT_POINTER = /^\/components\/([A-Za-z]+)\/([A-Za-z0-9._-]+)$/;

type Json = unknown;
type JsonObject = Record<string, unknown>;

/**
 * Turns specs/sandbox.openapi.yaml (the reference server's operations beyond the API's) into one
 * self-contained document, `sandbox.openapi.json`. The sandbox refers to the API's document for
 * what the two share (`$ref: "./spot-api.openapi.yaml#/components/..."`): each such reference
 * becomes `#/components/...`, and the component it names is copied in, with the components that
 * one refers to, under the same names. A component the sandbox declares as only a reference to
 * the same-named component of the API's document (its security schemes) is that component. A
 * name the sandbox defines otherwise than the API's document is an error naming both.
 */
export function bundleSandbox(sandboxYaml: string, openapiYaml: string): GeneratedFile {
  const file = "specs/sandbox.openapi.yaml";
  const sandbox = parseOpenApi(sandboxYaml, file);
  const api = parseOpenApi(openapiYaml);
  const components = objectAt(sandbox, "components");
  const imported = new Set<string>();

  const importComponent = (kind: string, name: string, where: string): void => {
    const key = `${kind}/${name}`;
    if (imported.has(key)) return;
    imported.add(key);
    const target = objectAt(api, "components")[kind];
    const value = isObject(target) ? target[name] : undefined;
    if (value === undefined) {
      throw new SpecSourceError(`${file}${where}: ${API_DOCUMENT} has no component ${kind}/${name}`);
    }
    const ownKind = objectAt(components, kind);
    const own = ownKind[name];
    const copy = structuredClone(value);
    if (own !== undefined && !isImport(own, kind, name) && JSON.stringify(own) !== JSON.stringify(copy)) {
      throw new SpecSourceError(
        `${file}#/components/${kind}/${name}: defined otherwise than ${API_DOCUMENT}#/components/${kind}/${name}; rename one of them`,
      );
    }
    // The copy's own references are the API's document's: import what they name too.
    ownKind[name] = rewrite(copy, `#/components/${kind}/${name}`, true);
  };

  /** Rewrites the references into the API's document; `internal`: `#/` references are the API's too. */
  const rewrite = (node: Json, where: string, internal: boolean): Json => {
    if (Array.isArray(node)) return node.map((item, i) => rewrite(item, `${where}/${i}`, internal));
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        const pointer = apiPointer(value, internal);
        if (pointer === undefined) {
          out[key] = value;
          continue;
        }
        const match = COMPONENT_POINTER.exec(pointer);
        if (!match) {
          throw new SpecSourceError(
            `${file}${where}: expected a reference to a component of ${API_DOCUMENT} (#/components/<kind>/<name>), found ${value}`,
          );
        }
        const [, kind, name] = match as unknown as [string, string, string];
        importComponent(kind, name, where);
        out[key] = `#/components/${kind}/${name}`;
      } else {
        out[key] = rewrite(value, `${where}/${escapePointer(key)}`, internal);
      }
    }
    return out;
  };

  const bundled = rewrite(sandbox, "#", false) as JsonObject;
  // Components imported while rewriting were written into the sandbox's components object;
  // the rewritten copy of the document replaced it, so they are carried over here.
  const bundledComponents = objectAt(bundled, "components");
  for (const [kind, entries] of Object.entries(components)) {
    const into = objectAt(bundledComponents, kind);
    for (const [name, value] of Object.entries(entries as JsonObject)) {
      if (imported.has(`${kind}/${name}`) || into[name] === undefined) into[name] = value;
    }
  }
  return { path: "sandbox.openapi.json", contents: `${JSON.stringify(bundled, null, 2)}\n` };
}

/** The pointer into the API's document a reference names, or undefined for another reference. */
function apiPointer(ref: string, internal: boolean): string | undefined {
  const hash = ref.indexOf("#");
  const target = hash < 0 ? ref : ref.slice(0, hash);
  const pointer = hash < 0 ? "" : ref.slice(hash + 1);
  if (target === "") return internal ? pointer : undefined;
  if (target === API_DOCUMENT || target === `./${API_DOCUMENT}`) return pointer;
  throw new SpecSourceError(
    `specs/sandbox.openapi.yaml: a reference may name only ${API_DOCUMENT} or this document, found ${ref}`,
  );
}

/** A component entry that only imports the same-named component of the API's document. */
function isImport(value: Json, kind: string, name: string): boolean {
  if (!isObject(value) || Object.keys(value).length !== 1 || typeof value.$ref !== "string") return false;
  return apiPointer(value.$ref, false) === `/components/${kind}/${name}`;
}

/** The object under `key` (created empty when absent). */
function objectAt(parent: JsonObject, key: string): JsonObject {
  const value = parent[key];
  if (isObject(value)) return value;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}
