import type { JsonSchema, OperationModel, SpecModel } from "../spec/operation-model.js";
import { resolveRef } from "../spec/operation-model.js";
import { describeValue, SpecError } from "../spec/spec-error.js";
import { ANNOTATION_KEYWORDS } from "./openapi-keywords.js";

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

/** Where the body of one response is validated. */
export type ResponseTarget =
  /** A named schema of components.schemas, by name. */
  | { component: string }
  /** A schema written inline in the response, compiled on its own. */
  | { inline: JsonSchema }
  /** A response without a JSON body. */
  | null;

export interface ResponsePlan {
  status: string;
  target: ResponseTarget;
}

/** x-response-variant-by: the request parameter that chooses the body, and each choice's schema. */
export interface VariantPlan {
  parameter: string;
  default?: string;
  /** The statuses whose body the variants describe: the operation's 2XX responses. */
  statuses: string[];
  /** Component name by parameter value. */
  components: Record<string, string>;
}

/**
 * The bodies of an operation's responses, by status as the spec writes it ("200", "5XX",
 * "default"). A body that is exactly a `$ref` to a named schema reuses that schema's validator.
 */
export function planResponses(operation: OperationModel): ResponsePlan[] {
  return operation.responses.map((response) => {
    if (response.schema === undefined) return { status: response.status, target: null };
    const component = componentOf(response.schema);
    return { status: response.status, target: component ? { component } : { inline: response.schema } };
  });
}

/** The component a schema is a bare `$ref` to (annotations aside), if it is one. */
function componentOf(schema: JsonSchema): string | undefined {
  if (typeof schema !== "object" || typeof schema.$ref !== "string") return undefined;
  const others = Object.keys(schema).filter(
    (k) => k !== "$ref" && !ANNOTATION_KEYWORDS.has(k) && !k.startsWith("x-"),
  );
  if (others.length > 0) return undefined;
  return COMPONENT_REF.exec(schema.$ref)?.[1];
}

/** Reads and checks the operation's `x-response-variant-by`. */
export function planVariants(model: SpecModel, operation: OperationModel): VariantPlan | undefined {
  const extension = operation.raw["x-response-variant-by"];
  if (extension === undefined) return undefined;
  const where = `${operation.pointer}/x-response-variant-by`;
  const source = model.source;
  if (typeof extension !== "object" || extension === null) {
    throw new SpecError(source, where, "an object { parameter, variants }", describeValue(extension));
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
  const variants = extension.variants;
  if (typeof variants !== "object" || variants === null || Object.keys(variants).length === 0) {
    throw new SpecError(
      source,
      `${where}/variants`,
      "an object of schema references by value",
      describeValue(variants),
    );
  }
  const schemas = model.document.components?.schemas ?? {};
  const components: Record<string, string> = {};
  for (const [value, ref] of Object.entries(variants)) {
    const name = typeof ref === "string" ? COMPONENT_REF.exec(ref)?.[1] : undefined;
    if (!name || schemas[name] === undefined) {
      throw new SpecError(
        source,
        `${where}/variants/${value}`,
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
    ...(typeof resolved.default === "string" ? { default: resolved.default } : {}),
    statuses,
    components,
  };
}
