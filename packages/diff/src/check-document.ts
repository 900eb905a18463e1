// What the diff needs of a document before it compares anything: OpenAPI 3.1 (3.0 arrives
// upgraded by the loader), an info.version,
// the containers it walks shaped as OpenAPI defines them, and every $ref internal and resolvable.
// Anything else may be any JSON: the structural fallback compares it as data (extensions too,
// whose $refs are not followed).
import type { OpenApiDocument } from "@marketapi/spec-loader";
import {
  describeValue,
  OPENAPI_30_OR_31,
  pointerOf,
  SpecError,
  SWAGGER_CONVERTER,
  segmentsOf,
  valueAt,
} from "@marketapi/spec-loader";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export const HTTP_METHODS: readonly string[] = METHODS;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function checkDocument(source: string, document: OpenApiDocument): void {
  const fault = (pointer: string, expected: string, value: unknown) =>
    new SpecError(source, pointer, expected, describeValue(value));
  if (document.swagger !== undefined && document.openapi === undefined) {
    throw fault("/swagger", `${OPENAPI_30_OR_31}; ${SWAGGER_CONVERTER}`, document.swagger);
  }
  if (typeof document.openapi !== "string" || !/^3\.1\.\d+$/.test(document.openapi)) {
    throw fault("/openapi", OPENAPI_30_OR_31, document.openapi);
  }
  if (!isObject(document.info) || typeof document.info.version !== "string") {
    throw fault("/info/version", "the API version, a string", document.info?.version);
  }
  for (const key of ["paths", "components", "webhooks"]) {
    if (document[key] !== undefined && !isObject(document[key]))
      throw fault(`/${key}`, "an object", document[key]);
  }
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const at = pointerOf("paths", path);
    if (!path.startsWith("/")) throw fault(at, 'a path that starts with "/"', path);
    if (!isObject(item)) throw fault(at, "a Path Item object", item);
    checkParameterList(item.parameters, `${at}/parameters`);
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      if (!isObject(operation)) throw fault(`${at}/${method}`, "an Operation object", operation);
      checkParameterList(operation.parameters, `${at}/${method}/parameters`);
      if (operation.responses !== undefined && !isObject(operation.responses)) {
        throw fault(`${at}/${method}/responses`, "a Responses object", operation.responses);
      }
      if (operation.security !== undefined && !Array.isArray(operation.security)) {
        throw fault(
          `${at}/${method}/security`,
          "an array of Security Requirement objects",
          operation.security,
        );
      }
    }
  }
  if (document.security !== undefined && !Array.isArray(document.security)) {
    throw fault("/security", "an array of Security Requirement objects", document.security);
  }
  checkReferences(document, "", new Set());

  function checkParameterList(list: unknown, at: string): void {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw fault(at, "an array of Parameter objects", list);
    list.forEach((entry, index) => {
      if (!isObject(entry)) throw fault(`${at}/${index}`, "a Parameter object", entry);
      if (typeof entry.$ref === "string") return;
      if (typeof entry.name !== "string" || typeof entry.in !== "string") {
        throw fault(`${at}/${index}`, 'a Parameter object with "name" and "in"', entry);
      }
    });
  }

  function checkReferences(node: unknown, at: string, seen: Set<unknown>): void {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        checkReferences(item, `${at}/${index}`, seen);
      });
      return;
    }
    const record = node as Record<string, unknown>;
    if ("$ref" in record && typeof record.$ref === "string" && !isSchemaKeywordName(at)) {
      const ref = record.$ref;
      if (!ref.startsWith("#")) throw fault(`${at}/$ref`, 'a reference inside the document ("#/...")', ref);
      if (valueAt(document, ref) === undefined) {
        throw fault(`${at}/$ref`, "a reference to a node of this document", ref);
      }
    }
    for (const [key, value] of Object.entries(record)) {
      // An extension's value is compared as data, never followed: a $ref in it (x-topics naming
      // a Markdown file, say) is text to the diff, and no reason to refuse the document.
      if (key.startsWith("x-")) continue;
      checkReferences(value, pointerOf(...segmentsOf(at), key), seen);
    }
  }
}

/** A property literally named "$ref" inside `properties` is a name, not a reference. */
function isSchemaKeywordName(at: string): boolean {
  return /\/properties$/.test(at);
}
