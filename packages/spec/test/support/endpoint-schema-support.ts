// Shared helpers for the Endpoint JSON Schema tests: loading the schema and its
// fixtures, building ajv instances, and turning ajv errors into fault pointers.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type Options, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const specsDir = new URL("../../../../specs/", import.meta.url);

export const ENDPOINT_SCHEMA_PATH = fileURLToPath(new URL("endpoint.schema.json", specsDir));
export const ENDPOINT_FIXTURES_DIR = fileURLToPath(new URL("examples/endpoint/", specsDir));

/** The payloadMimeType pattern exactly as the source document states it (unanchored). */
export const SEED_MIME_TYPE_PATTERN = "[^\\s]+([\\s]?[^\\s]+)*";
/** The source pattern as a whole-value match: what the source document means. */
export const SEED_MIME_TYPE_PATTERN_ANCHORED = `^(?:${SEED_MIME_TYPE_PATTERN})$`;
/** The linear-time equivalent the schema uses. */
export const LINEAR_MIME_TYPE_PATTERN = "^[^\\s]+(?:\\s[^\\s]+)*$";

/** A JSON Schema node, loosely typed: the tests walk it generically. */
export type SchemaNode = { [keyword: string]: unknown };

export function loadEndpointSchema(): SchemaNode {
  return JSON.parse(readFileSync(ENDPOINT_SCHEMA_PATH, "utf8")) as SchemaNode;
}

// ajv-formats is CommonJS: imported from ESM, its default export is the whole
// module.exports object, whose `default` property is the plugin itself.
const addFormats = addFormatsModule.default;

export interface CollectedLogs {
  log: unknown[][];
  warn: unknown[][];
  error: unknown[][];
}

/** An Ajv2020 instance with ajv-formats whose logger collects every message. */
export function createAjv(options: Options = {}): { ajv: Ajv2020; logs: CollectedLogs } {
  const logs: CollectedLogs = { log: [], warn: [], error: [] };
  const ajv = new Ajv2020({
    ...options,
    logger: {
      log: (...args: unknown[]) => logs.log.push(args),
      warn: (...args: unknown[]) => logs.warn.push(args),
      error: (...args: unknown[]) => logs.error.push(args),
    },
  });
  addFormats(ajv);
  return { ajv, logs };
}

/** Validator for the Endpoint schema, reporting every error (strict mode on). */
export function compileEndpointValidator(): ValidateFunction {
  const { ajv } = createAjv({ strict: true, allErrors: true });
  return ajv.compile(loadEndpointSchema());
}

function escapePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The JSON Pointer of the fault an ajv error describes: its instancePath, extended by
 * the property name for `required` and `additionalProperties` errors (ajv reports
 * those at the enclosing object).
 */
export function faultPointer(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === "required" && params.missingProperty !== undefined) {
    return `${error.instancePath}/${escapePointerToken(params.missingProperty)}`;
  }
  if (error.keyword === "additionalProperties" && params.additionalProperty !== undefined) {
    return `${error.instancePath}/${escapePointerToken(params.additionalProperty)}`;
  }
  return error.instancePath;
}

/** Sorted, de-duplicated fault pointers of a failed validation. */
export function faultPointers(errors: readonly ErrorObject[] | null | undefined): string[] {
  return [...new Set((errors ?? []).map(faultPointer))].sort();
}

export interface ValidFixture {
  file: string;
  data: unknown;
}

export interface InvalidFixture {
  file: string;
  description: string;
  data: unknown;
  expectedPath: string;
  otherPaths: string[];
}

function jsonFiles(subdir: string): string[] {
  const dir = `${ENDPOINT_FIXTURES_DIR}${subdir}/`;
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => `${dir}${name}`);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

export function loadValidFixtures(): ValidFixture[] {
  return jsonFiles("valid").map((path) => ({
    file: baseName(path),
    data: JSON.parse(readFileSync(path, "utf8")) as unknown,
  }));
}

export function loadInvalidFixtures(): InvalidFixture[] {
  return jsonFiles("invalid").map((path) => {
    const raw = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    const { description, data, expectedPath, otherPaths } = raw;
    if (typeof description !== "string" || typeof expectedPath !== "string" || !("data" in raw)) {
      throw new Error(`${path}: an invalid fixture needs "description", "expectedPath" and "data"`);
    }
    if (
      otherPaths !== undefined &&
      !(Array.isArray(otherPaths) && otherPaths.every((p) => typeof p === "string"))
    ) {
      throw new Error(`${path}: "otherPaths" must be an array of JSON Pointers`);
    }
    const extraKeys = Object.keys(raw).filter(
      (key) => !["description", "data", "expectedPath", "otherPaths"].includes(key),
    );
    if (extraKeys.length > 0) {
      throw new Error(`${path}: unknown keys ${extraKeys.join(", ")}`);
    }
    return {
      file: baseName(path),
      description,
      data,
      expectedPath,
      otherPaths: (otherPaths as string[] | undefined) ?? [],
    };
  });
}

/** Resolves a local `#/$defs/Name` reference against the schema root. */
export function resolveLocalRef(root: SchemaNode, ref: string): SchemaNode {
  const match = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
  const defs = root.$defs as Record<string, SchemaNode> | undefined;
  const target = match ? defs?.[match[1]!] : undefined;
  if (!target) throw new Error(`cannot resolve ${ref}`);
  return target;
}

const COMPLEX_TYPES = new Set([
  "Identifier",
  "Coding",
  "CodeableConcept",
  "Reference",
  "ContactPoint",
  "Period",
  "Element",
  "Extension",
  "Meta",
  "Narrative",
]);

/**
 * A short description of a property schema's shape, in the vocabulary of the source
 * document: "string", "Coding", "Identifier[]", "string[]". Primitive $defs (string,
 * uri, code, ...) all come out as "string".
 */
export function shapeOf(root: SchemaNode, node: SchemaNode): string {
  if (typeof node.$ref === "string") {
    const name = node.$ref.slice(node.$ref.lastIndexOf("/") + 1);
    if (COMPLEX_TYPES.has(name)) return name;
    return shapeOf(root, resolveLocalRef(root, node.$ref));
  }
  if (node.type === "array") {
    return `${shapeOf(root, node.items as SchemaNode)}[]`;
  }
  if (typeof node.type === "string") return node.type;
  throw new Error(`no shape for ${JSON.stringify(node)}`);
}

/** Visits every schema node (not instance data) reachable by keyword structure. */
export function walkSchema(node: unknown, visit: (node: SchemaNode, path: string) => void, path = "#"): void {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return;
  const schema = node as SchemaNode;
  visit(schema, path);
  for (const keyword of ["properties", "patternProperties", "$defs"]) {
    const map = schema[keyword] as Record<string, unknown> | undefined;
    if (map) {
      for (const [name, child] of Object.entries(map)) walkSchema(child, visit, `${path}/${keyword}/${name}`);
    }
  }
  if (schema.items !== undefined) walkSchema(schema.items, visit, `${path}/items`);
}
