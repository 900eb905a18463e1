import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const specPath = fileURLToPath(new URL("../../../../specs/spot-api.openapi.yaml", import.meta.url));
/** The reference server's sandbox document, linted with the same rules. */
export const sandboxPath = fileURLToPath(new URL("../../../../specs/sandbox.openapi.yaml", import.meta.url));

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked generically in tests
export type Json = any;

export function loadSourceSpec(): Json {
  return parse(readFileSync(specPath, "utf8"));
}

/** Follows a local `$ref` (one level at a time) until a non-reference object is reached. */
export function resolve(doc: Json, node: Json): Json {
  let current = node;
  const seen = new Set<string>();
  while (current && typeof current === "object" && typeof current.$ref === "string") {
    const ref: string = current.$ref;
    if (seen.has(ref)) throw new Error(`circular $ref ${ref}`);
    seen.add(ref);
    if (!ref.startsWith("#/")) throw new Error(`only local refs are used in the spec, found ${ref}`);
    current = ref
      .slice(2)
      .split("/")
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((value, key) => value?.[key], doc);
    if (current === undefined) throw new Error(`unresolvable $ref ${ref}`);
  }
  return current;
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

export interface SpecOperation {
  method: string;
  path: string;
  operation: Json;
}

export function listOperations(doc: Json): SpecOperation[] {
  const out: SpecOperation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of HTTP_METHODS) {
      if (item[method]) out.push({ method, path, operation: item[method] });
    }
  }
  return out;
}
