/** A JSON object of the document, read loosely: the model checks each field it relies on. */
// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are untyped input
export type JsonObject = Record<string, any>;

/** A JSON Schema node: an object, or `true`/`false`. */
// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes are untyped input
export type JsonSchema = Record<string, any> | boolean;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
