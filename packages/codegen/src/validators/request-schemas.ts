import type { JsonSchema, Operation, SourcedSpecModel } from "../spec-input/spec-model.js";
import type { HintTable } from "./message-hints.js";
import { mutuallyExclusive } from "./request-rules/mutually-exclusive.js";
import { orderTypeRules } from "./request-rules/order-type-rules.js";
import { parameterConditions } from "./request-rules/parameter-conditions.js";
import { resolveSchema } from "./request-rules/schema-rules.js";
import { signingEnvelope } from "./request-rules/signing.js";
import { wirePattern } from "./request-rules/wire-pattern.js";
import type { ParameterCoding, ParameterInfo, SigningEnvelope } from "./validators-runtime.js";

export type { ParameterCoding, ParameterInfo, SigningEnvelope };

export interface RequestSchema {
  /** JSON Schema of the parameters object, `$ref`s still pointing into the spec. */
  schema: Record<string, unknown>;
  /** Hints of the rules, keyed by schema path below `base`. */
  hints: HintTable;
  /** Where each parameter's schema stands in the spec, by parameter name (for SpecErrors). */
  sources: Record<string, string>;
  parameters: ParameterInfo[];
  signing?: SigningEnvelope;
}

/**
 * The JSON Schema of one operation's parameters, as a plain object of decoded values
 * (`{ symbol: "BTCUSDT", limit: 5 }`): each parameter a property, the required ones required,
 * nothing else allowed except the signing envelope of signed operations (`timestamp` and
 * `signature`, optional here: a client validates before it signs). The operation's
 * `x-order-type-rules` and `x-parameter-conditions` become `if`/`then` rules whose errors name
 * the rule; each `x-mutually-exclusive` pair becomes a `not` of both names required. `base` is the schema path the schema will have in the compiled document.
 */
export function buildRequestSchema(
  model: SourcedSpecModel,
  operation: Operation,
  base: string,
): RequestSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parameters: ParameterInfo[] = [];
  const sources: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    properties[parameter.name] = parameter.schema;
    if (parameter.required) required.push(parameter.name);
    sources[parameter.name] = parameter.schemaPointer;
    const resolved = resolveSchema(model, parameter.schema, operation.pointer);
    const coding: ParameterCoding =
      parameter.encoding === "json"
        ? "json"
        : codingOf(resolved, (branch) => resolveSchema(model, branch, operation.pointer));
    parameters.push({
      name: parameter.name,
      in: parameter.in,
      coding,
      expect: expectOfText(coding, parameter.example ?? resolved.example ?? resolved.default, resolved),
      ...wirePattern(parameter),
    });
  }
  const signing = signingEnvelope(operation);
  if (signing) {
    const envelope: Record<string, JsonSchema> = {
      [signing.names.timestamp]: { type: "integer", minimum: 0 },
      [signing.names.signature]: signing.signatureSchema,
    };
    for (const [name, schema] of Object.entries(envelope)) {
      if (properties[name] !== undefined) continue;
      properties[name] = schema;
      const coding = codingOf(schema as Record<string, unknown>);
      parameters.push({
        name,
        in: "query",
        coding,
        expect: expectOfText(coding, undefined, schema as object),
      });
    }
  }
  const hints: HintTable = { [base]: { unknown: `is not a parameter of ${operation.operationId}` } };
  const typeRules = orderTypeRules(model, operation, base, hints);
  const conditions = parameterConditions(operation, base, hints, typeRules.length);
  const rules = [
    ...typeRules,
    ...conditions,
    ...mutuallyExclusive(operation, base, hints, typeRules.length + conditions.length),
  ];
  const schema: Record<string, unknown> = { type: "object", properties, additionalProperties: false };
  if (required.length > 0) schema.required = required;
  if (rules.length > 0) schema.allOf = rules;
  return { schema, hints, sources, parameters, ...(signing ? { signing: signing.names } : {}) };
}

function codingOf(
  schema: Record<string, unknown>,
  resolveBranch: (branch: JsonSchema) => Record<string, unknown> = (branch) =>
    branch as Record<string, unknown>,
): ParameterCoding {
  const branches = schema.type === undefined ? (schema.oneOf ?? schema.anyOf) : undefined;
  if (Array.isArray(branches)) {
    const codings = new Set(
      branches.map((branch: JsonSchema) => codingOf(resolveBranch(branch), resolveBranch)),
    );
    if (codings.size === 2 && codings.has("integer") && codings.has("string")) return "integer-or-string";
    return codings.size === 1 ? ([...codings][0] as ParameterCoding) : "string";
  }
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  const type = types[0];
  return type === "integer" || type === "number" || type === "boolean" ? type : "string";
}

/** What the text of a parameter must look like, in words, for decoding errors. */
function expectOfText(coding: ParameterCoding, example: unknown, schema: object): string {
  const s = schema as Record<string, unknown>;
  switch (coding) {
    case "integer":
      return `an integer such as "${String(example ?? s.minimum ?? 1)}"`;
    case "number":
      return typeof s["x-wire-pattern"] === "string"
        ? `a number in plain decimal notation such as "${String(example ?? "1.5")}" (never "1e-7")`
        : `a decimal string such as "${String(example ?? "1.5")}"`;
    case "boolean":
      return "true or false";
    case "json":
      return example === undefined ? "JSON text" : `JSON such as ${JSON.stringify(example)}`;
    case "integer-or-string":
      return "an integer or text";
    default:
      return "text";
  }
}
