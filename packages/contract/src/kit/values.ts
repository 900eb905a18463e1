/**
 * Request values, in the order Schemathesis uses: the spec's examples, then boundary values of
 * every constrained parameter, then property-based generation (fast-check) with the run's seed.
 * Also the schema-invalid values negative_data_rejection sends.
 */

import type { RefusalRuleName } from "@marketapi/spec/model";
import { validateRequest } from "@marketapi/validators";
import fc from "fast-check";
import { formatDec, tryParseDec } from "../core/decimal.js";
import {
  type ContractOperation,
  type ContractParameter,
  exampleOf,
  type SchemaNode,
} from "../core/operations.js";
import { encodeParams, encodeValue, type ParamList, plainNumber } from "../http/request.js";

export interface ValueContext {
  /** Symbols the server lists. */
  symbols: string[];
  /** The symbol requests use by default. */
  symbol: string;
  /**
   * The end of the server's current UTC day (epoch ms). Generated times lie before it, so a seed
   * gives the same values all day long.
   */
  horizon: number;
  /** An order of the account, to use for `orderId` / `origClientOrderId`. */
  orderId?: number;
  clientOrderId?: string;
}

export type Values = Record<string, unknown>;

export interface ValueCase {
  label: string;
  values: Values;
}

export interface TextCase {
  label: string;
  params: ParamList;
  /** The parameter a bad value was put in, and that value (invalid-value cases only). */
  parameter?: string;
  text?: string;
  /** Kept without asking the validators: the rule is stated in prose the schemas do not encode. */
  fromDescription?: boolean;
  /** The refusal rules the case breaks (x-refusals names their codes); a refusal may follow any. */
  rules?: RefusalRuleName[];
  /** What the bad value breaks ("above maximum", "wrong type"). */
  breaks?: string;
}

function typeOf(schema: SchemaNode): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
}

function isSymbolParam(param: ContractParameter): boolean {
  return param.name === "symbol" || param.name === "symbols";
}

/** A value for a parameter the request needs: the example (a listed symbol), else one from the schema. */
export function exampleValue(param: ContractParameter, ctx: ValueContext): unknown {
  const example = exampleOf(param);
  if (isSymbolParam(param)) {
    if (param.encoding === "json" || typeOf(param.resolvedSchema) === "array") {
      const listed = Array.isArray(example) ? example.filter((s) => ctx.symbols.includes(String(s))) : [];
      return listed.length >= (param.resolvedSchema.minItems ?? 1)
        ? listed
        : ctx.symbols.slice(0, Math.max(1, param.resolvedSchema.minItems ?? 1));
    }
    return typeof example === "string" && ctx.symbols.includes(example) ? example : ctx.symbol;
  }
  if (param.name === "orderId" && ctx.orderId !== undefined) return ctx.orderId;
  if (param.name === "origClientOrderId" && ctx.clientOrderId !== undefined) return ctx.clientOrderId;
  if (example !== undefined) return example;
  return schemaValue(param.resolvedSchema, ctx);
}

/** Some valid value of a schema (for required parameters without an example). */
function schemaValue(schema: SchemaNode, ctx: ValueContext): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.oneOf?.[0] !== undefined && schema.type === undefined) return schemaValue(schema.oneOf[0], ctx);
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.example !== undefined) return schema.example;
  switch (typeOf(schema)) {
    case "integer":
      return schema.minimum ?? 1;
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "array":
      return [schemaValue(schema.items ?? {}, ctx)];
    default:
      if (schema.format === "date-time") return new Date(ctx.horizon - 86_400_000).toISOString();
      return "x";
  }
}

/** The required parameters, filled. */
export function requiredValues(op: ContractOperation, ctx: ValueContext): Values {
  const values: Values = {};
  for (const param of op.parameters) if (param.required) values[param.name] = exampleValue(param, ctx);
  return values;
}

function describe(value: unknown, param: ContractParameter): string {
  const text = encodeValue(param, value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/** Examples phase: the required parameters, then each optional parameter's example on its own. */
export function exampleCases(op: ContractOperation, ctx: ValueContext): ValueCase[] {
  const base = requiredValues(op, ctx);
  const cases: ValueCase[] = [{ label: "example: required parameters only", values: base }];
  for (const param of op.parameters) {
    if (param.required || exampleOf(param) === undefined) continue;
    const value = exampleValue(param, ctx);
    cases.push({
      label: `example: ${param.name}=${describe(value, param)}`,
      values: { ...base, [param.name]: value },
    });
  }
  return cases;
}

const SIMPLE_PATTERN = /^\^\[([^\]]+)\]\{(\d+),(\d+)\}\$$/;

/**
 * The shortest and longest text a string schema allows, with a character it accepts: from
 * minLength/maxLength, or from a pattern of the form ^[class]{m,n}$ (Symbol, ClientOrderId).
 */
export function lengthBounds(schema: SchemaNode): { min: number; max: number; char: string } | undefined {
  const simple = schema.pattern ? SIMPLE_PATTERN.exec(schema.pattern) : null;
  const min = schema.minLength ?? (simple ? Number(simple[2]) : undefined);
  const max = schema.maxLength ?? (simple ? Number(simple[3]) : undefined);
  if (min === undefined || max === undefined) return undefined;
  const accepts = (text: string) => !schema.pattern || new RegExp(schema.pattern, "u").test(text);
  const char = ["A", "a", "0", "x"].find((c) => accepts(c.repeat(Math.max(1, min))));
  return char === undefined ? undefined : { min, max, char };
}

/** Boundary phase: minimum and maximum of numbers and text lengths, fewest and most items of arrays, every enum value. */
export function boundaryCases(op: ContractOperation, ctx: ValueContext): ValueCase[] {
  const base = requiredValues(op, ctx);
  const cases: ValueCase[] = [];
  const add = (param: ContractParameter, value: unknown) => {
    if (base[param.name] !== undefined && JSON.stringify(base[param.name]) === JSON.stringify(value)) return;
    cases.push({
      label: `boundary: ${param.name}=${describe(value, param)}`,
      values: { ...base, [param.name]: value },
    });
  };
  for (const param of op.parameters) {
    const s = param.resolvedSchema;
    const type = typeOf(s);
    if (type === "integer" || type === "number") {
      if (s.minimum !== undefined) add(param, s.minimum);
      if (s.maximum !== undefined) add(param, s.maximum);
    } else if (type === "array" && isSymbolParam(param)) {
      const min = Math.max(1, s.minItems ?? 1);
      const max = Math.min(s.maxItems ?? ctx.symbols.length, ctx.symbols.length);
      if (ctx.symbols.length >= min) add(param, ctx.symbols.slice(0, min));
      if (max > min) add(param, ctx.symbols.slice(0, max));
    } else if (s.enum && !isSymbolParam(param)) {
      for (const value of s.enum) add(param, value);
    } else if (type === "string") {
      const bounds = lengthBounds(s);
      if (bounds && bounds.min > 0) add(param, bounds.char.repeat(bounds.min));
      if (bounds && bounds.max > bounds.min) add(param, bounds.char.repeat(bounds.max));
    }
  }
  return cases;
}

/** The symbol arbitrary: mostly listed symbols, sometimes any text the Symbol pattern allows. */
function symbolArbitrary(param: ContractParameter, ctx: ValueContext): fc.Arbitrary<unknown> {
  const listed = fc.constantFrom(...(ctx.symbols.length > 0 ? ctx.symbols : [ctx.symbol]));
  if (param.encoding === "json" || typeOf(param.resolvedSchema) === "array") {
    const min = Math.max(1, param.resolvedSchema.minItems ?? 1);
    const max = Math.max(
      min,
      Math.min(param.resolvedSchema.maxItems ?? ctx.symbols.length, ctx.symbols.length),
    );
    return fc.uniqueArray(listed, { minLength: min, maxLength: max });
  }
  const pattern = param.resolvedSchema.pattern;
  return pattern
    ? fc.oneof(
        { arbitrary: listed, weight: 5 },
        { arbitrary: fc.stringMatching(new RegExp(pattern)), weight: 1 },
      )
    : listed;
}

function schemaArbitrary(schema: SchemaNode, ctx: ValueContext): fc.Arbitrary<unknown> {
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.oneOf && schema.oneOf.length > 0 && schema.type === undefined) {
    return fc.oneof(...schema.oneOf.map((branch) => schemaArbitrary(branch, ctx)));
  }
  const type = typeOf(schema);
  if (type === "integer") {
    const min = Math.max(schema.minimum ?? 0, Number.MIN_SAFE_INTEGER);
    const max = Math.min(schema.maximum ?? Math.max(min, ctx.horizon), Number.MAX_SAFE_INTEGER);
    return fc.integer({ min, max });
  }
  if (type === "number") {
    const min =
      schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1e-8 : 0);
    return fc.double({ min, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
  }
  if (type === "boolean") return fc.boolean();
  if (type === "array")
    return fc.array(schemaArbitrary(schema.items ?? {}, ctx), {
      minLength: schema.minItems ?? 0,
      maxLength: Math.min(schema.maxItems ?? 5, 5),
    });
  if (schema.format === "date-time") {
    return fc
      .date({
        min: new Date(ctx.horizon - 8 * 86_400_000),
        max: new Date(ctx.horizon),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 40) });
}

/**
 * Property-based values for an operation: required parameters always, each optional one
 * sometimes; of two parameters that exclude each other only the first is kept.
 */
export function generatedCases(
  op: ContractOperation,
  ctx: ValueContext,
  seed: number,
  count: number,
): ValueCase[] {
  if (count <= 0) return [];
  const fields = op.parameters.map((param) => {
    const arb = isSymbolParam(param)
      ? symbolArbitrary(param, ctx)
      : schemaArbitrary(param.resolvedSchema, ctx);
    return param.required ? arb : fc.option(arb, { nil: undefined, freq: 2 });
  });
  const samples = fc.sample(fc.tuple(...fields), { seed, numRuns: count });
  return samples.map((tuple) => {
    const values: Values = {};
    op.parameters.forEach((param, i) => {
      if (tuple[i] !== undefined) values[param.name] = tuple[i];
    });
    for (const [first, second] of op.exclusivePairs) {
      if (values[first] !== undefined && values[second] !== undefined) delete values[second];
    }
    const shown =
      Object.keys(values).length === 0
        ? "no parameters"
        : encodeParams(op, values)
            .map(([k, v]) => `${k}=${v.length > 24 ? `${v.slice(0, 21)}…` : v}`)
            .join("&");
    return { label: `generated (seed ${seed}): ${shown}`, values };
  });
}

/** Whether a schema refuses a plain word such as "yesterday" (it is typed, formatted or patterned). */
function refusesPlainWords(schema: SchemaNode): boolean {
  const type = typeOf(schema);
  if (type === "integer" || type === "number" || type === "boolean" || type === "array") return true;
  if (schema.enum) return !schema.enum.includes("yesterday");
  if (schema.pattern !== undefined) return !new RegExp(schema.pattern, "u").test("yesterday");
  return schema.format === "date-time" || schema.format === "date";
}

/** Texts that break a parameter's schema, with what they break. */
function invalidTexts(param: ContractParameter): Array<[string, string]> {
  const s = param.resolvedSchema;
  const type = typeOf(s);
  const out: Array<[string, string]> = [];
  if (param.encoding === "json") {
    out.push(["not JSON", "BTCUSDT,ETHUSDT"]);
    if ((s.minItems ?? 0) >= 1) out.push(["empty list", "[]"]);
    const example = exampleOf(param);
    if (s.uniqueItems && typeof example === "object" && Array.isArray(example) && example.length > 0) {
      const item = JSON.stringify(example[0]);
      out.push(["repeated item", `[${item},${item}]`]);
    }
    return out;
  }
  if (s.oneOf && s.oneOf.length > 0 && type === undefined) {
    // A union: only text that every alternative refuses is negative data.
    if (s.oneOf.every(refusesPlainWords)) out.push(["none of the alternatives", "yesterday"]);
    return out;
  }
  if (type === "integer") {
    out.push(["wrong type", "abc"], ["not an integer", "1.5"]);
    if (s.minimum !== undefined) out.push(["below minimum", String(s.minimum - 1)]);
    if (s.maximum !== undefined) out.push(["above maximum", String(s.maximum + 1)]);
  } else if (type === "number") {
    out.push(["wrong type", "abc"]);
    if (s.exclusiveMinimum !== undefined)
      out.push(["not above exclusiveMinimum", plainNumber(s.exclusiveMinimum)]);
    if (s.minimum !== undefined) out.push(["below minimum", plainNumber(s.minimum - 1)]);
  } else if (type === "boolean") {
    out.push(["wrong type", "maybe"]);
  } else if (s.enum && s.enum.length > 0) {
    out.push(["unknown enum value", "NOT_A_VALUE"]);
  } else if (s.format === "date-time") {
    out.push(["not a date-time", "yesterday"]);
  } else {
    const offPattern = s.pattern ? valueOffPattern(s.pattern) : undefined;
    if (offPattern !== undefined) out.push(["not matching the pattern", offPattern]);
    const bounds = lengthBounds(s);
    if (bounds) out.push(["too long", bounds.char.repeat(bounds.max + 1)]);
    if (bounds && bounds.min > 0 && !s.pattern) out.push(["empty", ""]);
  }
  return out;
}

/**
 * Candidates for a value a pattern refuses: first those of letters, digits, "-", "." and "_" only,
 * which no hop between the tester and the target re-encodes (so the signed bytes arrive as signed;
 * a proxy may escape even "~"), then others for patterns that accept all of those.
 */
const OFF_PATTERN_CANDIDATES = ["lowercase", "UPPERCASE", "0", "-", ".", "~~", "bad value!", "\u00e9"];

function compiled(pattern: string, flags: string): RegExp | undefined {
  try {
    return new RegExp(pattern, flags);
  } catch {
    return undefined;
  }
}

/**
 * A value the pattern refuses, checked with the pattern itself (a fixed value could match a
 * permissive pattern); undefined when no candidate is refused or the pattern does not compile.
 */
export function valueOffPattern(pattern: string): string | undefined {
  const regex = compiled(pattern, "u") ?? compiled(pattern, "");
  return regex && OFF_PATTERN_CANDIDATES.find((candidate) => !regex.test(candidate));
}

/** A text value that is valid for a parameter (to add a forbidden parameter to an otherwise valid order). */
function plausibleText(name: string, base: ParamList): string {
  const price = base.find(([n]) => n === "price")?.[1];
  const quantity = base.find(([n]) => n === "quantity")?.[1];
  switch (name) {
    case "timeInForce":
      return "GTC";
    case "trailingDelta":
      return "100";
    case "quoteOrderQty":
      return quantity ?? "1";
    default:
      return price ?? "1";
  }
}

/**
 * `base` with `name` added at a valid value, and what that value needs of the others: an iceberg
 * shows half the order (the base's quantity, the order's doubled), which ICEBERG_PARTS allows.
 */
export function plausibleWith(name: string, base: ParamList): ParamList {
  const quantity = tryParseDec(base.find(([n]) => n === "quantity")?.[1]);
  if (name === "icebergQty" && quantity !== undefined)
    return [
      ...base.map(([n, v]): [string, string] => [n, n === "quantity" ? formatDec(2n * quantity) : v]),
      [name, formatDec(quantity)],
    ];
  return [...base, [name, plausibleText(name, base)]];
}

/**
 * Negative cases for an operation, built as wire text on a valid base: each required parameter
 * missing, each parameter with values its schema forbids, excluded pairs sent together and, for
 * operations with x-order-type-rules, the base type's rules broken. Only cases the validators
 * confirm as invalid are kept, so the tester never calls a valid request invalid; the exception
 * is an excluded pair, which the spec states in a description ("Cannot be combined with").
 */
export function negativeCases(op: ContractOperation, base: ParamList): TextCase[] {
  const cases: TextCase[] = [];
  const has = (name: string) => base.some(([n]) => n === name);
  for (const param of op.parameters) {
    if (param.required) {
      cases.push({
        label: `negative: ${param.name} missing`,
        params: base.filter(([n]) => n !== param.name),
        parameter: param.name,
        rules: ["missing-parameter"],
      });
    }
  }
  const baseType = base.find(([n]) => n === "type")?.[1];
  const forbidden = (baseType !== undefined ? op.orderTypeRules?.[baseType]?.forbidden : undefined) ?? [];
  for (const param of op.parameters) {
    for (const [what, text] of invalidTexts(param)) {
      const params: ParamList = has(param.name)
        ? base.map(([n, v]) => [n, n === param.name ? text : v])
        : [...base, [param.name, text]];
      cases.push({
        label: `negative: ${param.name}=${JSON.stringify(text)} (${what})`,
        params,
        parameter: param.name,
        text,
        breaks: what,
        rules: [
          what === "unknown enum value"
            ? "unknown-enum-value"
            : what === "repeated item"
              ? "repeated-item"
              : "malformed-value",
          // A bad value of a parameter the order type forbids breaks that rule too.
          ...(!has(param.name) && forbidden.includes(param.name)
            ? (["parameter-not-required"] as const)
            : []),
        ],
      });
    }
  }
  for (const [a, b] of op.exclusivePairs) {
    const pa = op.parameters.find((p) => p.name === a);
    const pb = op.parameters.find((p) => p.name === b);
    if (!pa || !pb) continue;
    const symbol =
      base.find(([n]) => n === "symbol")?.[1] ??
      (typeof exampleOf(pa) === "string" ? (exampleOf(pa) as string) : "BTCUSDT");
    const va = has(a)
      ? base.find(([n]) => n === a)![1]
      : encodeValue(pa, pa.encoding === "json" ? [symbol] : symbol);
    const vb = has(b)
      ? base.find(([n]) => n === b)![1]
      : encodeValue(pb, pb.encoding === "json" ? [symbol] : symbol);
    const rest = base.filter(([n]) => n !== a && n !== b);
    cases.push({
      label: `negative: ${a} and ${b} together`,
      params: [...rest, [a, va], [b, vb]],
      fromDescription: true,
      rules: ["exclusive-parameters"],
    });
  }
  const type = base.find(([n]) => n === "type")?.[1];
  const rule = type !== undefined ? op.orderTypeRules?.[type] : undefined;
  if (rule) {
    for (const name of rule.required ?? []) {
      if (has(name) && !op.parameters.find((p) => p.name === name)?.required) {
        cases.push({
          label: `negative: ${type} without ${name} (x-order-type-rules)`,
          params: base.filter(([n]) => n !== name),
          parameter: name,
          rules: ["missing-parameter"],
        });
      }
    }
    for (const name of rule.forbidden ?? []) {
      if (!has(name)) {
        cases.push({
          label: `negative: ${type} with ${name} (x-order-type-rules forbids it)`,
          params: [...base, [name, plausibleText(name, base)]],
          parameter: name,
          rules: ["parameter-not-required"],
        });
      }
    }
  }
  cases.push(...wireCases(op, base), ...conditionCases(op, base, forbidden));
  return cases.filter(
    (c) => c.fromDescription || !validateRequest(op.operationId, c.params, { from: "query" }).valid,
  );
}

/**
 * x-wire-pattern broken on a valid base: each decimal the base sends written in exponent notation
 * (`0.001` as `1e-3`), the same number in text the pattern refuses.
 */
function wireCases(op: ContractOperation, base: ParamList): TextCase[] {
  const cases: TextCase[] = [];
  for (const param of op.parameters) {
    const value = base.find(([n]) => n === param.name)?.[1];
    if (param.wirePattern === undefined || value === undefined || !Number.isFinite(Number(value))) continue;
    const text = Number(value).toExponential();
    const pattern = compiled(param.wirePattern, "u");
    if (pattern === undefined || pattern.test(text)) continue;
    cases.push({
      label: `negative: ${param.name}=${text} (${value} in exponent notation; x-wire-pattern)`,
      params: base.map(([n, v]): [string, string] => [n, n === param.name ? text : v]),
      parameter: param.name,
      text,
      breaks: "exponent notation",
      rules: ["malformed-value"],
    });
  }
  return cases;
}

/**
 * x-parameter-conditions broken on a valid base: the triggering parameter sent (a valid value,
 * where the base's order type allows it) with a required parameter at another value of its enum.
 */
function conditionCases(op: ContractOperation, base: ParamList, forbidden: readonly string[]): TextCase[] {
  const cases: TextCase[] = [];
  for (const { when, require } of op.parameterConditions) {
    if (base.some(([n]) => n === when) || forbidden.includes(when)) continue;
    for (const [name, wanted] of Object.entries(require)) {
      const other = op.parameters
        .find((p) => p.name === name)
        ?.resolvedSchema.enum?.find((v) => v !== wanted);
      if (typeof other !== "string") continue;
      cases.push({
        label: `negative: ${when} with ${name}=${other} (x-parameter-conditions: ${name} must be ${String(wanted)})`,
        params: [
          ...plausibleWith(
            when,
            base.filter(([n]) => n !== name),
          ),
          [name, other],
        ],
        parameter: name,
        text: other,
        rules: ["parameter-condition"],
      });
    }
  }
  return cases;
}
