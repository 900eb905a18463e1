// What each sample sends, decided once for all three languages: which parameters, with which
// values, in which place (path, query string or form body, headers, cookies), which request body,
// and in which order a reader runs the samples. The bytes each place gets are written by
// @marketapi/client's own wire rules (@marketapi/client/wire), so that the shell and Python
// samples send what the TypeScript sample's client sends.
import {
  cookiePair,
  encodeBody,
  fillPath,
  formatDecimal,
  headerValue,
  type ParameterWire,
  queryPart,
} from "@marketapi/client/wire";
import {
  type SampleBody,
  type SampleOperation,
  type SampleParameter,
  SampleScenarioError,
  type SampleSpec,
  SampleSpecError,
  type SkippedOperation,
  skippedFor,
} from "./sample-spec.js";
import { declaredPartOf, meetsSchemaOf, sampleValueOf } from "./sample-values.js";

/**
 * A parameter value of the scenario: decimals as plain text, integers as numbers, JSON values as
 * arrays; in other specs any JSON value (arrays and objects for styled parameters).
 */
export type ScenarioValue =
  | string
  | number
  | boolean
  | null
  | readonly unknown[]
  | Readonly<Record<string, unknown>>;

/**
 * The story the samples tell, as data. The spec gives the operations, names, types and examples;
 * the scenario only chooses what a reader's first calls send.
 */
export interface SampleScenario {
  /** Values by parameter name; where absent, the parameter's example in the spec is used. */
  values: Readonly<Record<string, ScenarioValue>>;
  /** Optional parameters sent wherever an operation declares them (all required ones are always sent). */
  optional: readonly string[];
  /** The order the order-placing operation (the one with `x-order-type-rules`) places. */
  order: {
    /** Its parameters beyond the operation's required ones: the type and what its rule requires. */
    params: Readonly<Record<string, ScenarioValue>>;
    /** The parameter of the placing operation that names the order, and the one that finds it later. */
    idParameter: string;
    lookupParameter: string;
  };
}

const CLIENT_ORDER_ID = "docs-sample-order";

export const DEFAULT_SCENARIO: SampleScenario = {
  // BTCUSDT trades near 60000 on the reference server; the order below is priced for it.
  values: { symbol: "BTCUSDT", limit: 5 },
  optional: ["symbol", "symbols", "limit"],
  order: {
    // A LIMIT GTC buy a third of the way to zero: it rests on the book until the sequence cancels
    // it. 0.001 × 20000 = 20 USDT clears the 5 USDT minimum notional.
    params: {
      side: "BUY",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: "0.001",
      price: "20000",
      newClientOrderId: CLIENT_ORDER_ID,
    },
    idParameter: "newClientOrderId",
    lookupParameter: "origClientOrderId",
  },
};

export interface SampleArgument {
  parameter: SampleParameter;
  /** The value as the scenario or the spec gives it (an array for JSON parameters). */
  value: ScenarioValue;
  /** The value's text before percent-encoding: `0.001`, `["BTCUSDT","ETHUSDT"]` (JSON text for arrays and objects). */
  text: string;
}

export interface SampleRequest {
  operation: SampleOperation;
  /** The query parameters (or, with placement "body", the form body's). */
  arguments: SampleArgument[];
  /** Where the parameters (and, when signed, the timestamp and signature) travel. */
  placement: "query" | "body";
  /** The path, header and cookie parameters. */
  placed: SampleArgument[];
  /** The request body sent, and its value. */
  body?: { spec: SampleBody; value: unknown };
}

export { SampleScenarioError } from "./sample-spec.js";

/** One request per operation of the spec, in the spec's order. Strict specs throw on any fault. */
export function planRequests(spec: SampleSpec, scenario: SampleScenario = DEFAULT_SCENARIO): SampleRequest[] {
  return planSamples(spec, scenario).requests;
}

/**
 * One request per operation of the spec, in the spec's order, and the operations whose request
 * cannot be planned (only when the spec is not strict: a strict one throws), with why.
 */
export function planSamples(
  spec: SampleSpec,
  scenario: SampleScenario = DEFAULT_SCENARIO,
): { requests: SampleRequest[]; skipped: SkippedOperation[] } {
  const orderId = scenario.order.params[scenario.order.idParameter];
  if (orderId === undefined) {
    throw new SampleScenarioError(`the scenario's order has no ${scenario.order.idParameter}`);
  }
  const requests: SampleRequest[] = [];
  const skipped: SkippedOperation[] = [];
  for (const operation of spec.operations) {
    try {
      requests.push(planRequest(spec, operation, scenario, orderId));
    } catch (error) {
      skipped.push(skippedFor(error, operation, spec.strict));
    }
  }
  return { requests, skipped };
}

function planRequest(
  spec: SampleSpec,
  operation: SampleOperation,
  scenario: SampleScenario,
  orderId: ScenarioValue,
): SampleRequest {
  const chosen = operation.orderTypeRules
    ? orderArguments(operation, scenario, spec)
    : lookupArguments(operation, scenario, orderId, spec);
  const placed = operation.placedParameters
    .filter((p) => p.required || p.in === "path")
    .map((p) => valueFor(operation, p, scenario.values[p.name], spec));
  const body = bodyOf(spec, operation);
  return {
    operation,
    arguments: chosen,
    placement: operation.acceptsFormBody && chosen.length > 0 ? "body" : "query",
    placed,
    ...(body ? { body } : {}),
  };
}

/** The body's value: the media type's example, else (other specs) one made from its schema. */
function bodyOf(spec: SampleSpec, operation: SampleOperation): SampleRequest["body"] {
  const body = operation.body;
  if (!body) return undefined;
  const where = `${operation.operationId}: request body (${body.mediaType})`;
  let value = spec.strict ? body.example : declaredPartOf(spec.document, body.schema, body.example);
  if (value === undefined) {
    if (spec.strict) {
      if (!body.required) return undefined;
      throw new SampleScenarioError(`${where}: no sample value (give the media type an example in the spec)`);
    }
    value = sampleValueOf(spec.document, body.schema);
  }
  if ((body.kind === "form" || body.kind === "multipart") && !isRecord(value)) {
    throw new SampleSpecError(
      `${where}: expected an object of fields for a ${body.kind} body, found ${JSON.stringify(value)}`,
      body.pointer,
    );
  }
  if (!body.required && isEmpty(value)) return undefined;
  return { spec: body, value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmpty(value: unknown): boolean {
  return value === "" || (isRecord(value) && Object.keys(value).length === 0);
}

/**
 * The argument of a parameter: the scenario's value, else the spec's example, else its first enum
 * value. Strict specs stop there (a missing value is an error); others take the first of these
 * that fits the parameter, else a value made from its schema.
 */
function valueFor(
  operation: SampleOperation,
  parameter: SampleParameter,
  given: unknown,
  spec: Pick<SampleSpec, "strict" | "document">,
): SampleArgument {
  const where = `${operation.operationId}.${parameter.name}`;
  if (spec.strict) {
    const value = (given ?? parameter.example ?? parameter.enum?.[0]) as ScenarioValue | undefined;
    if (value === undefined) {
      throw new SampleScenarioError(
        `${where}: no sample value (give the parameter an example in the spec, or the scenario a value)`,
      );
    }
    return { parameter, value, text: wireText(where, parameter, value) };
  }
  // The spec's own example is taken only where it meets the spec's schema (a server that checks
  // requests by the spec refuses it otherwise); the scenario's value is checked by wireText below.
  const candidates = [
    given,
    ...[parameter.example, parameter.enum?.[0]].filter((v) =>
      meetsSchemaOf(spec.document, parameter.valueSchema, v),
    ),
  ].filter((v) => v !== undefined);
  let fault: unknown;
  for (const candidate of [...candidates, sampleValueOf(spec.document, parameter.valueSchema)]) {
    const value = looseValue(parameter, candidate as ScenarioValue);
    try {
      return { parameter, value, text: wireText(where, parameter, value, { strict: false }) };
    } catch (error) {
      if (!(error instanceof SampleScenarioError)) throw error;
      fault ??= error;
    }
  }
  throw fault;
}

/** Other specs' decimals may be numbers: written as the plain decimals the wire takes. */
function looseValue(parameter: SampleParameter, value: ScenarioValue): ScenarioValue {
  return parameter.kind === "decimal" && typeof value === "number" ? formatDecimal(value) : value;
}

/**
 * The value's text on the wire, checked against the parameter's type, enum and `x-wire-pattern`.
 * Strict (this repository's spec): no whitespace either, as form encoders differ on spaces.
 */
export function wireText(
  where: string,
  parameter: Pick<SampleParameter, "kind" | "enum" | "wirePattern">,
  value: ScenarioValue,
  { strict = true } = {},
): string {
  const fail = (expected: string) =>
    new SampleScenarioError(`${where}: expected ${expected}, found ${JSON.stringify(value)}`);
  let text: string;
  switch (parameter.kind) {
    case "json":
      if (!Array.isArray(value)) throw fail("an array (sent as one JSON value)");
      text = JSON.stringify(value);
      break;
    case "decimal":
      if (typeof value !== "string" || !/^-?[0-9]+(\.[0-9]+)?$/.test(value)) {
        throw fail('a decimal written as plain text, such as "0.001"');
      }
      text = value;
      break;
    case "integer":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) throw fail("an integer");
      text = String(value);
      break;
    case "string":
      if (typeof value !== "string") throw fail("a string");
      text = value;
      break;
    default:
      if (value === undefined) throw fail("a value");
      text = typeof value === "string" ? value : JSON.stringify(value);
  }
  if (parameter.enum && !parameter.enum.includes(text)) throw fail(`one of ${parameter.enum.join(", ")}`);
  if (parameter.wirePattern && !new RegExp(parameter.wirePattern).test(text)) {
    throw fail(`text matching x-wire-pattern ${parameter.wirePattern}`);
  }
  if (strict && /\s/.test(text)) throw fail("text without whitespace (form encoders differ on spaces)");
  return text;
}

/** Required parameters plus the scenario's optional ones, one per mutually exclusive group. */
function lookupArguments(
  operation: SampleOperation,
  scenario: SampleScenario,
  orderId: ScenarioValue,
  spec: Pick<SampleSpec, "strict" | "document">,
): SampleArgument[] {
  const values: Record<string, ScenarioValue> = {
    ...scenario.values,
    [scenario.order.lookupParameter]: orderId,
  };
  const wanted = new Set([...scenario.optional, scenario.order.lookupParameter]);
  const sent = operation.queryParameters.filter((p) => p.required || wanted.has(p.name));
  const kept = sent.filter((p) => !excludedByGroup(operation, p, sent));
  return kept.map((p) => valueFor(operation, p, values[p.name], spec));
}

/**
 * Of a group of `x-mutually-exclusive` parameters, the sample sends one: a JSON-encoded one when
 * the group has it (its encoding is what a reader most needs to see), else the first.
 */
function excludedByGroup(operation: SampleOperation, parameter: SampleParameter, sent: SampleParameter[]) {
  const group = operation.mutuallyExclusive.find((names) => names.includes(parameter.name));
  if (!group) return false;
  const members = sent.filter((p) => group.includes(p.name));
  const keep = members.find((p) => p.kind === "json") ?? members[0];
  return keep !== parameter;
}

/** The placing operation: its required parameters and the scenario's order, checked against its rule. */
function orderArguments(
  operation: SampleOperation,
  scenario: SampleScenario,
  spec: Pick<SampleSpec, "strict" | "document">,
): SampleArgument[] {
  const order = scenario.order.params;
  const where = operation.operationId;
  const declared = new Set(operation.queryParameters.map((p) => p.name));
  for (const name of Object.keys(order)) {
    if (!declared.has(name))
      throw new SampleScenarioError(
        `${where}: the scenario's order sends ${name}, which the operation does not declare`,
      );
  }
  const type = String(order.type ?? "");
  const rule = operation.orderTypeRules?.[type];
  if (!rule) {
    throw new SampleScenarioError(
      `${where}: the scenario's order type ${JSON.stringify(type)} has no entry in x-order-type-rules`,
    );
  }
  const has = (name: string) => order[name] !== undefined;
  const missing = (rule.required ?? []).filter((name) => !has(name));
  const forbidden = (rule.forbidden ?? []).filter(has);
  const exactly = (rule.exactlyOneOf ?? []).filter((group) => group.filter(has).length !== 1);
  const atLeast = (rule.atLeastOneOf ?? []).filter((group) => !group.some(has));
  const faults = [
    ...missing.map((name) => `${name} is required`),
    ...forbidden.map((name) => `${name} is forbidden`),
    ...exactly.map((group) => `exactly one of ${group.join(", ")} is required`),
    ...atLeast.map((group) => `one of ${group.join(", ")} is required`),
  ];
  if (faults.length > 0) {
    throw new SampleScenarioError(
      `${where}: the scenario's ${type} order breaks x-order-type-rules: ${faults.join("; ")}`,
    );
  }
  const sent = operation.queryParameters.filter((p) => p.required || has(p.name));
  return sent.map((p) => valueFor(operation, p, order[p.name] ?? scenario.values[p.name], spec));
}

/** How a parameter travels, for the client's wire rules. */
export function parameterWire(parameter: SampleParameter): ParameterWire {
  return {
    name: parameter.name,
    in: parameter.in,
    ...(parameter.style !== undefined ? { style: parameter.style } : {}),
    ...(parameter.explode !== undefined ? { explode: parameter.explode } : {}),
    ...(parameter.encoding === "json" ? { json: true } : {}),
    ...(parameter.allowReserved ? { allowReserved: true } : {}),
  };
}

/** The value as the wire rules take it: decimals as their text (never a number in exponent notation). */
function wireValue(arg: SampleArgument): unknown {
  return arg.parameter.kind === "decimal" ? arg.text : arg.value;
}

/** `name=value&…`, percent-encoded: the query string or form body the sample sends (unsigned part). */
export function encodedArguments(request: SampleRequest): string {
  return request.arguments
    .map((arg) => queryPart(parameterWire(arg.parameter), wireValue(arg)))
    .filter((part) => part !== "")
    .join("&");
}

/** The path with its parameters written in, each in its style and percent-encoded. */
export function filledPath(request: SampleRequest): string {
  const path = request.placed.filter((arg) => arg.parameter.in === "path");
  const wires = new Map(path.map((arg) => [arg.parameter.name, parameterWire(arg.parameter)]));
  return fillPath(
    request.operation.path,
    wires,
    Object.fromEntries(path.map((arg) => [arg.parameter.name, wireValue(arg)])),
  );
}

/** The header parameters as they are sent: `[name, value]`. */
export function headerArguments(request: SampleRequest): [string, string][] {
  return request.placed
    .filter((arg) => arg.parameter.in === "header")
    .flatMap((arg) => {
      const text = headerValue(parameterWire(arg.parameter), wireValue(arg));
      return text === undefined ? [] : [[arg.parameter.name, text] as [string, string]];
    });
}

/** The cookie parameters as `name=value` pairs of the Cookie header. */
export function cookieArguments(request: SampleRequest): string[] {
  return request.placed
    .filter((arg) => arg.parameter.in === "cookie")
    .flatMap((arg) => cookiePair(parameterWire(arg.parameter), wireValue(arg)) ?? []);
}

/** The text of a JSON, form or text request body as sent (multipart and byte bodies have no fixed text here). */
export function bodyText(request: SampleRequest): string | undefined {
  const body = request.body;
  if (!body || body.spec.kind === "multipart") return undefined;
  return encodeBody(
    {
      mediaType: body.spec.mediaType,
      required: body.spec.required,
      ...(body.spec.encoding ? { encoding: body.spec.encoding } : {}),
    },
    body.value,
  ).text;
}

/** A step of the order a reader runs the samples in. */
export interface SequenceStep {
  request: SampleRequest;
  /** True when the step runs a sample that an earlier step ran already. */
  repeat: boolean;
}

/**
 * The order to run the samples in, so that each one works: the unsigned operations first (in the
 * spec's order), then the order's life: place it, read the account, cancel the order by its id;
 * operations that act on every open order come last, after the order is placed again.
 */
export function sampleSequence(requests: SampleRequest[], scenario: SampleScenario = DEFAULT_SCENARIO) {
  const signed = (r: SampleRequest) => r.operation.credentials.kind === "signed";
  const isPlacing = (r: SampleRequest) => r.operation.orderTypeRules !== undefined;
  const findsOrder = (r: SampleRequest) =>
    r.arguments.some((arg) => arg.parameter.name === scenario.order.lookupParameter);
  const reads = (r: SampleRequest) => r.operation.method === "get";

  const placing = requests.filter(isPlacing);
  const account = requests.filter((r) => signed(r) && !isPlacing(r));
  const steps: SequenceStep[] = [
    ...requests.filter((r) => !signed(r) && !isPlacing(r)),
    ...placing,
    ...account.filter(reads),
    ...account.filter((r) => !reads(r) && findsOrder(r)),
  ].map((request) => ({ request, repeat: false }));
  const onEveryOrder = account.filter((r) => !reads(r) && !findsOrder(r));
  if (onEveryOrder.length > 0) {
    steps.push(...placing.map((request) => ({ request, repeat: true })));
    steps.push(...onEveryOrder.map((request) => ({ request, repeat: false })));
  }
  return steps;
}
