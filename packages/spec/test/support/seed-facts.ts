// The facts of the source document (seed 000, transcribed in test/data/seed-000.ts) that the spec
// must keep, compared in one place: the fidelity test asserts there is no difference, and
// `npm run api:check` reports the same differences seconds after an edit.
import {
  type SeedOperation,
  type SeedParameter,
  type SeedType,
  seedAuthClasses,
  seedOperations,
} from "../data/seed-000.js";
import { type Json, listOperations, resolve } from "./openapi.js";

export interface SeedDifference {
  operationId: string;
  /** The parameter that differs, if the difference is a parameter's. */
  parameter?: string;
  /** What differs, in words: "type", "required", "not in the source document", … */
  fact: string;
  /** What the source document says. */
  seed: string;
  /** What specs/ says. */
  spec: string;
}

/** Where the reader is sent for what to do (the section says it for each case). */
export const WHAT_TO_DO = [
  "The source document (seed 000) is law for these facts: an operation, its method, path and",
  "x-auth-class, each parameter's name, type, required flag and declared default.",
  "  - If the source did not change, keep its fact in specs/spot-api.openapi.yaml (undo the edit;",
  "    a new parameter or operation the source does not list cannot be added to this spec).",
  "  - If the source has a new revision, update packages/spec/test/data/seed-000.ts to it in the",
  "    same commit, naming the section that changed.",
  'See specs/README.md, "When a change touches a fact of the source document".',
].join("\n");

/** The seed's type vocabulary for a parameter of `spec`, or what was found instead. */
export function seedTypeOf(spec: Json, parameter: Json): SeedType | string {
  if (parameter.content) {
    const schema = resolve(spec, parameter.content["application/json"]?.schema);
    const items = resolve(spec, schema?.items);
    return schema?.type === "array" && items?.type === "string" ? "array of string" : JSON.stringify(schema);
  }
  const schema = resolve(spec, parameter.schema);
  if (isDateTime(spec, schema)) return "date_time";
  if (schema?.type === "number") return "float";
  if (schema?.type === "integer" || schema?.type === "string") return schema.type;
  return JSON.stringify(schema);
}

/**
 * The seed's date_time: a type of its own (not the plain integers of all_orders) whose two wire
 * encodings, filled from the live API, are both declared: RFC 3339 text and epoch milliseconds.
 */
function isDateTime(spec: Json, schema: Json): boolean {
  const branches: Json[] = (schema?.oneOf ?? []).map((b: Json) => resolve(spec, b));
  const text = branches.some((b) => b.type === "string" && b.format === "date-time");
  const millis = branches.some((b) => b.type === "integer" && b.format === "int64");
  return schema?.title === "date_time" && branches.length === 2 && text && millis;
}

/** How the spec marks a fact it filled from the live API. */
const FILLED_MARK = /\*\*Filled from the live API\*\*/;

const shown = (value: unknown) => (value === undefined ? "none" : JSON.stringify(value));

/** Every difference between `spec` and the source document's facts; empty when the spec keeps them. */
export function seedDifferences(spec: Json): SeedDifference[] {
  const operations = listOperations(spec);
  const byId = new Map(operations.map((op) => [String(op.operation.operationId), op]));
  const seedIds = new Set(seedOperations.map((op) => op.operationId));
  const found: SeedDifference[] = [];
  for (const { operation, method, path } of operations) {
    if (!seedIds.has(operation.operationId)) {
      found.push({
        operationId: String(operation.operationId),
        fact: "operation not in the source document",
        seed: "no such operation",
        spec: `${method.toUpperCase()} ${path}`,
      });
    }
  }
  for (const seed of seedOperations) {
    const op = byId.get(seed.operationId);
    if (!op) {
      found.push({
        operationId: seed.operationId,
        fact: "operation missing from specs/",
        seed: `${seed.method.toUpperCase()} ${seed.path}`,
        spec: "no such operationId",
      });
      continue;
    }
    found.push(...operationDifferences(spec, seed, op.method, op.path, op.operation));
  }
  return found;
}

function operationDifferences(
  spec: Json,
  seed: SeedOperation,
  method: string,
  path: string,
  operation: Json,
): SeedDifference[] {
  const found: SeedDifference[] = [];
  const at = (fact: string, seedValue: string, specValue: string, parameter?: string) =>
    found.push({
      operationId: seed.operationId,
      ...(parameter !== undefined ? { parameter } : {}),
      fact,
      seed: seedValue,
      spec: specValue,
    });
  if (method !== seed.method || path !== seed.path)
    at("method and path", `${seed.method.toUpperCase()} ${seed.path}`, `${method.toUpperCase()} ${path}`);
  const authClass = operation["x-auth-class"];
  if (authClass !== seed.auth) at("x-auth-class", seed.auth, shown(authClass));
  if (!seedAuthClasses[seed.auth].includes(seed.operationId))
    at("x-auth-class (section 5's grouping)", `not listed under ${seed.auth}`, shown(authClass));

  const declared: Json[] = (operation.parameters ?? []).map((p: Json) => resolve(spec, p));
  // The source document's parameters travel in the query string or the body. A request header is
  // not one of them (it leaves how headers are used "not shown", like the API key's): a header
  // parameter is a fact filled from the live API, and must say so.
  for (const header of declared.filter((p) => p.in === "header")) {
    if (!FILLED_MARK.test(String(header.description ?? "")))
      at(
        "header parameter not marked as filled from the live API",
        "no such header",
        "unmarked",
        header.name,
      );
  }
  const parameters = declared.filter((p) => p.in !== "header");
  const names = parameters.map((p) => String(p.name));
  const seedNames = seed.parameters.map((p) => p.name);
  for (const name of names.filter((n) => !seedNames.includes(n)))
    at("parameter not in the source document", "no such parameter", "declared", name);
  for (const name of seedNames.filter((n) => !names.includes(n)))
    at("parameter missing from specs/", "declared", "no such parameter", name);
  const common = names.filter((n) => seedNames.includes(n));
  const seedOrder = seedNames.filter((n) => names.includes(n));
  if (common.join() !== seedOrder.join()) at("parameter order", seedOrder.join(", "), common.join(", "));
  for (const seedParameter of seed.parameters) {
    const parameter = parameters.find((p) => p.name === seedParameter.name);
    if (parameter) found.push(...parameterDifferences(spec, seed.operationId, seedParameter, parameter));
  }
  return found;
}

function parameterDifferences(
  spec: Json,
  operationId: string,
  seed: SeedParameter,
  parameter: Json,
): SeedDifference[] {
  const found: SeedDifference[] = [];
  const at = (fact: string, seedValue: string, specValue: string) =>
    found.push({ operationId, parameter: seed.name, fact, seed: seedValue, spec: specValue });
  if (parameter.in !== "query") at("in", "query", shown(parameter.in));
  const type = seedTypeOf(spec, parameter);
  if (type !== seed.type) at("type", seed.type, type);
  const required = parameter.required === true;
  if (required !== seed.required) at("required", String(seed.required), String(required));
  const schema = parameter.schema ? resolve(spec, parameter.schema) : undefined;
  if (schema?.default !== seed.default) at("default", shown(seed.default), shown(schema?.default));
  return found;
}

/** One line a difference: the operation, the parameter, the fact, the source's value and the spec's. */
export function describeDifference(d: SeedDifference): string {
  const where = d.parameter === undefined ? d.operationId : `${d.operationId}, parameter ${d.parameter}`;
  return `${where}: ${d.fact} (source document: ${d.seed}; specs/: ${d.spec})`;
}

/** The message of a failed comparison: each difference on its line, then what to do. */
export function differencesMessage(differences: readonly SeedDifference[]): string {
  return [
    `specs/spot-api.openapi.yaml differs from the source document in ${differences.length} fact(s):`,
    ...differences.map((d) => `  ${describeDifference(d)}`),
    "",
    WHAT_TO_DO,
  ].join("\n");
}
