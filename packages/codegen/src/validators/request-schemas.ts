import { readWirePattern } from "@marketapi/spec/model";
import { SpecError } from "../spec-input/spec-error.js";
import type { JsonSchema, OperationModel, SpecModel } from "../spec-input/spec-model.js";
import { asSpecError, resolveRef } from "../spec-input/spec-model.js";
import { type HintTable, schemaPathOf } from "./message-hints.js";
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
export function buildRequestSchema(model: SpecModel, operation: OperationModel, base: string): RequestSchema {
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
    const wirePattern = asSpecError(model.source, () => readWirePattern(resolved, parameter.schemaPointer));
    parameters.push({
      name: parameter.name,
      in: parameter.in,
      coding,
      expect: expectOfText(coding, parameter.example ?? resolved.example ?? resolved.default, resolved),
      ...(wirePattern === undefined ? {} : { wirePattern }),
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

function resolveSchema(model: SpecModel, schema: JsonSchema, pointer: string): Record<string, unknown> {
  if (typeof schema === "boolean") return {};
  return resolveRef(model, schema, pointer);
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

interface Signing {
  names: SigningEnvelope;
  signatureSchema: JsonSchema;
}

/**
 * The signing envelope of an operation whose security requirements use a scheme with
 * `x-signing`: its parameter names and the shape of the signature
 * (64 hex digits for HMAC-SHA256, any non-empty text otherwise).
 */
function signingEnvelope(operation: OperationModel): Signing | undefined {
  const signing = operation.signing;
  if (!signing) return undefined;
  return {
    names: { timestamp: signing.timestampParameter, signature: signing.signatureParameter },
    signatureSchema:
      signing.algorithm === "HMAC-SHA256"
        ? { type: "string", pattern: "^[0-9a-fA-F]{64}$" }
        : { type: "string", minLength: 1 },
  };
}

/** The JSON Schema `{ if, then }`. */
function conditional(
  condition: Record<string, unknown>,
  consequence: Record<string, unknown>,
): Record<string, unknown> {
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword; the object is never awaited
  return { if: condition, then: consequence };
}

/** Marks the names as declared where they are required, as ajv's strictRequired wants. */
function declared(names: string[]): Record<string, true> {
  return Object.fromEntries(names.map((name) => [name, true]));
}

function orderTypeRules(
  model: SpecModel,
  operation: OperationModel,
  base: string,
  hints: HintTable,
): Record<string, unknown>[] {
  const table = operation.orderTypeRules;
  if (table === undefined) return [];
  const where = `${operation.pointer}/x-order-type-rules`;
  const selector = selectorParameter(model, operation, Object.keys(table), where);
  return Object.entries(table).map(([value, rule], index) => {
    const when = `when ${selector} is ${value}`;
    const then: Record<string, unknown> = {};
    const thenProperties: Record<string, JsonSchema> = {};
    const allOf: Record<string, unknown>[] = [];
    const thenSegments = ["allOf", index, "then"] as const;
    hints[schemaPathOf(base, thenSegments)] = { when, rule: "x-order-type-rules" };
    if (rule.required !== undefined) {
      then.required = rule.required;
      Object.assign(thenProperties, declared(rule.required));
    }
    for (const name of rule.forbidden ?? []) thenProperties[name] = false;
    const groups = [
      ...(rule.atLeastOneOf ?? []).map((names) => ({ names, exact: false })),
      ...(rule.exactlyOneOf ?? []).map((names) => ({ names, exact: true })),
    ];
    for (const { names, exact } of groups) {
      hints[schemaPathOf(base, [...thenSegments, "allOf", allOf.length])] = {
        when,
        rule: "x-order-type-rules",
        oneOfNames: names,
      };
      allOf.push({ anyOf: names.map((name) => ({ required: [name], properties: declared([name]) })) });
      if (!exact) continue;
      for (const pair of pairsOf(names)) {
        hints[schemaPathOf(base, [...thenSegments, "allOf", allOf.length])] = {
          when,
          rule: "x-order-type-rules",
          exclusive: pair,
        };
        allOf.push(exclusionOf(pair));
      }
    }
    if (Object.keys(thenProperties).length > 0) then.properties = thenProperties;
    if (allOf.length > 0) then.allOf = allOf;
    return conditional({ properties: { [selector]: { const: value } }, required: [selector] }, then);
  });
}

/** The parameter whose allowed values are the rule table's keys (`type` for order types). */
function selectorParameter(
  model: SpecModel,
  operation: OperationModel,
  keys: string[],
  where: string,
): string {
  const candidates = operation.parameters.filter((p) => {
    const values = resolveSchema(model, p.schema, operation.pointer).enum;
    return Array.isArray(values) && keys.every((key) => values.includes(key));
  });
  if (candidates.length !== 1) {
    throw new SpecError(
      model.source,
      where,
      "rule keys that are the allowed values of exactly one parameter",
      candidates.length === 0 ? "no such parameter" : candidates.map((p) => p.name).join(", "),
    );
  }
  return candidates[0]!.name;
}

/** `x-parameter-conditions`: when the trigger is given, the named parameters must have the given values. */
function parameterConditions(
  operation: OperationModel,
  base: string,
  hints: HintTable,
  offset: number,
): Record<string, unknown>[] {
  return operation.parameterConditions.map(({ when: trigger, require }, i) => {
    const names = Object.keys(require);
    hints[schemaPathOf(base, ["allOf", offset + i, "then"])] = {
      when: `when ${trigger} is given`,
      rule: "x-parameter-conditions",
    };
    return conditional(
      { required: [trigger], properties: declared([trigger]) },
      {
        required: names,
        properties: Object.fromEntries(names.map((name) => [name, { const: require[name] }])),
      },
    );
  });
}

/** `x-mutually-exclusive: [[symbol, symbols]]`: at most one name of each group may be given. */
function mutuallyExclusive(
  operation: OperationModel,
  base: string,
  hints: HintTable,
  offset: number,
): Record<string, unknown>[] {
  return operation.exclusivePairs.map((pair, i) => {
    hints[schemaPathOf(base, ["allOf", offset + i])] = { rule: "x-mutually-exclusive", exclusive: pair };
    return exclusionOf(pair);
  });
}

/** Every unordered pair of the names, in order: [a, b, c] → [a, b], [a, c], [b, c]. */
function pairsOf(names: string[]): [string, string][] {
  return names.flatMap((first, i) => names.slice(i + 1).map((second): [string, string] => [first, second]));
}

/** A schema that fails when both names of the pair are given. */
function exclusionOf(pair: [string, string]): Record<string, unknown> {
  return { not: { required: pair, properties: declared(pair) } };
}
