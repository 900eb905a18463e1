// Values made from a public spec's schemas, for calls of the corpus tests: the schema's example,
// default, const or first enum value, else one made from its type.
import { type JsonSchema, resolveRef } from "@marketapi/spec/model";

/** A value of a schema: its example, default, const or first enum value, else one made from its type. */
export function sampleOf(
  document: Record<string, unknown>,
  schema: JsonSchema | undefined,
  depth = 0,
): unknown {
  if (schema === undefined || depth > 6) return "x";
  const s = typeof schema === "object" && schema !== null ? resolveRef(document, schema, "") : {};
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum.find((v: unknown) => v !== null) ?? s.enum[0];
  if (s.example !== undefined && typeof s.example !== "object") return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0 && typeof s.examples[0] !== "object")
    return s.examples[0];
  if (s.default !== undefined && typeof s.default !== "object") return s.default;
  for (const key of ["allOf", "oneOf", "anyOf"]) {
    if (Array.isArray(s[key]) && s[key].length > 0) {
      if (key !== "allOf")
        return sampleOf(
          document,
          s[key].find((b: JsonSchema) => (b as { type?: unknown })?.type !== "null") ?? s[key][0],
          depth + 1,
        );
      return Object.assign({}, ...s[key].map((b: JsonSchema) => sampleOf(document, b, depth + 1)));
    }
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "integer":
    case "number":
      return typeof s.minimum === "number"
        ? s.minimum
        : typeof s.exclusiveMinimum === "number"
          ? s.exclusiveMinimum + 1
          : 1;
    case "boolean":
      return true;
    case "array":
      return [sampleOf(document, s.items, depth + 1)];
    case "object": {
      const out: Record<string, unknown> = {};
      for (const name of Array.isArray(s.required) ? s.required : []) {
        out[name] = sampleOf(document, s.properties?.[name], depth + 1);
      }
      return out;
    }
    default:
      if (s.properties) return sampleOf(document, { ...s, type: "object" }, depth);
      return (
        {
          "date-time": "2024-01-01T00:00:00Z",
          date: "2024-01-01",
          uuid: "7b8f0a3e-6f1d-4c1e-9a2b-3c4d5e6f7a8b",
          email: "a@example.com",
          uri: "https://example.com/",
          binary: "bytes",
        }[String(s.format)] ?? (typeof s.minLength === "number" ? "x".repeat(s.minLength) : "x")
      );
  }
}
