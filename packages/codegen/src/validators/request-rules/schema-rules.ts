// JSON Schema building blocks of the request rules (the x- extensions below).
import type { JsonSchema, SourcedSpecModel } from "../../spec-input/spec-model.js";
import { resolveRef } from "../../spec-input/spec-model.js";

/** The JSON Schema `{ if, then }`. */
export function conditional(
  condition: Record<string, unknown>,
  consequence: Record<string, unknown>,
): Record<string, unknown> {
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword; the object is never awaited
  return { if: condition, then: consequence };
}

/** Marks the names as declared where they are required, as ajv's strictRequired wants. */
export function declared(names: string[]): Record<string, true> {
  return Object.fromEntries(names.map((name) => [name, true]));
}

/** Every unordered pair of the names, in order: [a, b, c] → [a, b], [a, c], [b, c]. */
export function pairsOf(names: string[]): [string, string][] {
  return names.flatMap((first, i) => names.slice(i + 1).map((second): [string, string] => [first, second]));
}

/** A schema that fails when both names of the pair are given. */
export function exclusionOf(pair: [string, string]): Record<string, unknown> {
  return { not: { required: pair, properties: declared(pair) } };
}

/** A parameter's schema with its `$ref` followed (`{}` for the boolean schemas). */
export function resolveSchema(
  model: SourcedSpecModel,
  schema: JsonSchema,
  pointer: string,
): Record<string, unknown> {
  if (typeof schema === "boolean") return {};
  return resolveRef(model, schema, pointer);
}
