// The one home of `x-response-variant-by` in codegen: both generators read it through here.
import type { OperationModel, SpecModel } from "./operation-model.js";
import { resolveRef } from "./operation-model.js";
import { describeValue, SpecError } from "./spec-error.js";

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

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
  /** Component name by variant. */
  components: Record<string, string>;
  /** Most specific first; see VariantShape. */
  shapes: VariantShape[];
}

/** Reads and checks an operation's `x-response-variant-by`; undefined when it has none. */
export function readResponseVariants(
  model: SpecModel,
  operation: OperationModel,
): ResponseVariants | undefined {
  const extension = operation.raw["x-response-variant-by"];
  if (extension === undefined) return undefined;
  const where = `${operation.pointer}/x-response-variant-by`;
  const source = model.source;
  if (typeof extension !== "object" || extension === null || Array.isArray(extension)) {
    throw new SpecError(
      source,
      where,
      "an object { parameter, variants } or { parameter, whenPresent, whenAbsent }",
      describeValue(extension),
    );
  }
  const parameter = operation.parameters.find((p) => p.name === extension.parameter);
  if (!parameter) {
    throw new SpecError(
      source,
      `${where}/parameter`,
      "the name of a parameter of the operation",
      describeValue(extension.parameter),
    );
  }
  const byPresence = extension.whenPresent !== undefined || extension.whenAbsent !== undefined;
  const refs: Record<string, unknown> = byPresence
    ? { present: extension.whenPresent, absent: extension.whenAbsent }
    : extension.variants;
  if (!byPresence && (typeof refs !== "object" || refs === null || Object.keys(refs).length === 0)) {
    throw new SpecError(
      source,
      `${where}/variants`,
      "an object of schema references by value",
      describeValue(refs),
    );
  }
  const schemas = model.document.components?.schemas ?? {};
  const components: Record<string, string> = {};
  for (const [value, ref] of Object.entries(refs)) {
    const name = typeof ref === "string" ? COMPONENT_REF.exec(ref)?.[1] : undefined;
    if (!name || schemas[name] === undefined) {
      const key = byPresence ? (value === "present" ? "whenPresent" : "whenAbsent") : `variants/${value}`;
      throw new SpecError(
        source,
        `${where}/${key}`,
        "a #/components/schemas/... reference that resolves",
        describeValue(ref),
      );
    }
    components[value] = name;
  }
  const resolved =
    typeof parameter.schema === "object"
      ? resolveRef({ source, document: model.document }, parameter.schema, `${where}/parameter`)
      : {};
  const statuses = operation.responses.map((r) => r.status).filter((status) => status.startsWith("2"));
  if (statuses.length === 0) {
    throw new SpecError(
      source,
      `${operation.pointer}/responses`,
      "a 2XX response for x-response-variant-by",
      "none",
    );
  }
  return {
    parameter: parameter.name,
    by: byPresence ? "presence" : "value",
    ...(!byPresence && typeof resolved.default === "string" ? { default: resolved.default } : {}),
    statuses,
    components,
    shapes: variantShapes(model, components, where),
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
function variantShapes(model: SpecModel, components: Record<string, string>, where: string): VariantShape[] {
  const outlines = Object.entries(components).map(([variant, name]) => ({
    variant,
    ...outline(model, { $ref: `#/components/schemas/${name}` }, where),
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
function outline(model: SpecModel, schema: unknown, where: string, depth = 0): Outline {
  const resolved = resolveRef({ source: model.source, document: model.document }, schema, where);
  const required = new Set<string>(Array.isArray(resolved.required) ? resolved.required : []);
  let type: Outline["type"] | undefined =
    resolved.type === "array" ? "array" : resolved.type === "object" ? "object" : undefined;
  if (Array.isArray(resolved.allOf) && depth < 32) {
    for (const part of resolved.allOf) {
      const inner = outline(model, part, where, depth + 1);
      for (const name of inner.required) required.add(name);
      type ??= inner.type;
    }
  }
  return { type: type ?? "object", required };
}
