import type { JsonSchema, Operation } from "../spec-input/spec-model.js";
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

/**
 * The bodies of an operation's responses, by status as the spec writes it ("200", "5XX",
 * "default"). A body that is exactly a `$ref` to a named schema reuses that schema's validator.
 */
export function planResponses(operation: Operation): ResponsePlan[] {
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
