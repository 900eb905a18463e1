// x-response-variant-by: a request parameter chooses the shape of the 2XX body (docs/extensions.md).
import { isObject, type JsonObject } from "../json.js";
import { componentName, resolveRef } from "../refs.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

/** How a body tells which variant it is, without the request. */
export interface VariantShape {
  variant: string;
  /** The body's JSON type. */
  type: "object" | "array";
  /**
   * Property names only this variant (and larger ones, listed before it) requires: a body of this
   * type with any of them claims this variant. Empty for the smallest variant of its type, which
   * every other body of that type claims.
   */
  markers: string[];
}

/**
 * An operation's `x-response-variant-by`: which request parameter chooses the 2XX body.
 * - by "value": the parameter's value names the variant (`newOrderRespType=ACK`), `default` when absent;
 * - by "presence": variant "present" when the parameter is sent, "absent" when not (`symbol` on the tickers).
 */
export interface ResponseVariants {
  parameter: string;
  by: "value" | "presence";
  default?: string;
  /** The statuses whose body the variants describe: the operation's 2XX responses. */
  statuses: string[];
  /** Component schema name by variant. */
  components: Record<string, string>;
  /** The reference the spec writes, by variant (`#/components/schemas/NewOrderAck`). */
  refs: Record<string, string>;
  /** Most specific first; see VariantShape. */
  shapes: VariantShape[];
}

interface VariantInput {
  document: JsonObject;
  value: unknown;
  /** JSON Pointer of the operation. */
  where: string;
  /** The operation's parameters by name, with their schemas. */
  parameters: ReadonlyMap<string, { schema: unknown }>;
  statuses: string[];
}

/** Reads and checks an operation's `x-response-variant-by`; undefined when it has none. */
export function readResponseVariants(input: VariantInput): ResponseVariants | undefined {
  const { document, value: extension } = input;
  if (extension === undefined) return undefined;
  const where = `${input.where}/x-response-variant-by`;
  if (!isObject(extension)) {
    throw new SpecModelError(
      where,
      "an object { parameter, variants } or { parameter, whenPresent, whenAbsent }",
      describeValue(extension),
    );
  }
  const parameter =
    typeof extension.parameter === "string" ? input.parameters.get(extension.parameter) : undefined;
  if (!parameter) {
    throw new SpecModelError(
      `${where}/parameter`,
      "the name of a parameter of the operation",
      describeValue(extension.parameter),
    );
  }
  const byPresence = extension.whenPresent !== undefined || extension.whenAbsent !== undefined;
  const refs: unknown = byPresence
    ? { present: extension.whenPresent, absent: extension.whenAbsent }
    : extension.variants;
  if (!isObject(refs) || Object.keys(refs).length === 0) {
    throw new SpecModelError(
      `${where}/variants`,
      "an object of schema references by value",
      describeValue(refs),
    );
  }
  const schemas = isObject(document.components?.schemas) ? document.components.schemas : {};
  const components: Record<string, string> = {};
  for (const [variant, ref] of Object.entries(refs)) {
    const name = componentName(ref, "schemas");
    if (name === undefined || schemas[name] === undefined) {
      const key = byPresence ? (variant === "present" ? "whenPresent" : "whenAbsent") : `variants/${variant}`;
      throw new SpecModelError(
        `${where}/${key}`,
        "a #/components/schemas/... reference that resolves",
        describeValue(ref),
      );
    }
    components[variant] = name;
  }
  const resolved = isObject(parameter.schema)
    ? resolveRef(document, parameter.schema, `${where}/parameter`)
    : {};
  const statuses = input.statuses.filter((status) => status.startsWith("2"));
  if (statuses.length === 0) {
    throw new SpecModelError(`${input.where}/responses`, "a 2XX response for x-response-variant-by", "none");
  }
  return {
    parameter: extension.parameter,
    by: byPresence ? "presence" : "value",
    ...(!byPresence && typeof resolved.default === "string" ? { default: resolved.default } : {}),
    statuses,
    components,
    refs: refs as Record<string, string>,
    shapes: variantShapes(document, components, where),
  };
}

interface Outline {
  type: "object" | "array";
  required: Set<string>;
}

/**
 * Orders the variants from the most to the least specific and gives each the property names that
 * tell it apart from the smaller variants of its type (see VariantShape).
 */
function variantShapes(
  document: JsonObject,
  components: Record<string, string>,
  where: string,
): VariantShape[] {
  const outlines = Object.entries(components).map(([variant, name]) => ({
    variant,
    ...outline(document, document.components.schemas[name], where),
  }));
  const bySize = [...outlines].sort((a, b) => b.required.size - a.required.size);
  return bySize.map((current) => {
    const smaller = bySize.filter(
      (other) => other.type === current.type && other.required.size < current.required.size,
    );
    const known = new Set(smaller.flatMap((other) => [...other.required]));
    const markers = smaller.length === 0 ? [] : [...current.required].filter((name) => !known.has(name));
    return { variant: current.variant, type: current.type, markers };
  });
}

/** The JSON type and the required property names of a schema, through `$ref` and `allOf`. */
function outline(document: JsonObject, schema: unknown, where: string, depth = 0): Outline {
  const resolved = resolveRef(document, schema, where);
  const required = new Set<string>(Array.isArray(resolved.required) ? resolved.required : []);
  let type: Outline["type"] | undefined =
    resolved.type === "array" ? "array" : resolved.type === "object" ? "object" : undefined;
  if (Array.isArray(resolved.allOf) && depth < 32) {
    for (const part of resolved.allOf) {
      const inner = outline(document, part, where, depth + 1);
      for (const name of inner.required) required.add(name);
      type ??= inner.type;
    }
  }
  return { type: type ?? "object", required };
}

export const responseVariantByExtension = {
  key: "x-response-variant-by",
  name: "response-variant-by",
  on: "operation",
  field: "Operation.responseVariants",
  constrains: ["responses"],
  summary: "the request parameter that chooses the shape of the 2XX body",
  read: readResponseVariants,
} as const satisfies ExtensionDescriptor;
