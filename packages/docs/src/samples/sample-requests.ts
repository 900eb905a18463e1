// What each sample sends, decided once for all three languages: which parameters, with which
// values, in the query string or a form body, and in which order a reader runs the samples.
import type { SampleOperation, SampleParameter, SampleSpec } from "./sample-spec.js";
import { formEncode } from "./wire.js";

/** A parameter value of the scenario: decimals as plain text, integers as numbers, JSON values as arrays. */
export type ScenarioValue = string | number | readonly string[];

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
  /** The value's text before percent-encoding: `0.001`, `["BTCUSDT","ETHUSDT"]`. */
  text: string;
}

export interface SampleRequest {
  operation: SampleOperation;
  arguments: SampleArgument[];
  /** Where the parameters (and, when signed, the timestamp and signature) travel. */
  placement: "query" | "body";
}

export class SampleScenarioError extends Error {
  override name = "SampleScenarioError";
}

/** One request per operation of the spec, in the spec's order. */
export function planRequests(spec: SampleSpec, scenario: SampleScenario = DEFAULT_SCENARIO): SampleRequest[] {
  const orderId = scenario.order.params[scenario.order.idParameter];
  if (orderId === undefined) {
    throw new SampleScenarioError(`the scenario's order has no ${scenario.order.idParameter}`);
  }
  return spec.operations.map((operation) => {
    const chosen = operation.orderTypeRules
      ? orderArguments(operation, scenario)
      : lookupArguments(operation, scenario, orderId);
    return {
      operation,
      arguments: chosen,
      placement: operation.acceptsFormBody && chosen.length > 0 ? "body" : "query",
    };
  });
}

function valueFor(operation: SampleOperation, parameter: SampleParameter, given: unknown): SampleArgument {
  const where = `${operation.operationId}.${parameter.name}`;
  const value = (given ?? parameter.example ?? parameter.enum?.[0]) as ScenarioValue | undefined;
  if (value === undefined) {
    throw new SampleScenarioError(
      `${where}: no sample value (give the parameter an example in the spec, or the scenario a value)`,
    );
  }
  return { parameter, value, text: wireText(where, parameter, value) };
}

/** The value's text on the wire, checked against the parameter's type, enum and `x-wire-pattern`. */
export function wireText(
  where: string,
  parameter: Pick<SampleParameter, "kind" | "enum" | "wirePattern">,
  value: ScenarioValue,
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
    default:
      if (typeof value !== "string") throw fail("a string");
      text = value;
  }
  if (parameter.enum && !parameter.enum.includes(text)) throw fail(`one of ${parameter.enum.join(", ")}`);
  if (parameter.wirePattern && !new RegExp(parameter.wirePattern).test(text)) {
    throw fail(`text matching x-wire-pattern ${parameter.wirePattern}`);
  }
  if (/\s/.test(text)) throw fail("text without whitespace (form encoders differ on spaces)");
  return text;
}

/** Required parameters plus the scenario's optional ones, one per mutually exclusive group. */
function lookupArguments(
  operation: SampleOperation,
  scenario: SampleScenario,
  orderId: ScenarioValue,
): SampleArgument[] {
  const values: Record<string, ScenarioValue> = {
    ...scenario.values,
    [scenario.order.lookupParameter]: orderId,
  };
  const wanted = new Set([...scenario.optional, scenario.order.lookupParameter]);
  const sent = operation.queryParameters.filter((p) => p.required || wanted.has(p.name));
  const kept = sent.filter((p) => !excludedByGroup(operation, p, sent));
  return kept.map((p) => valueFor(operation, p, values[p.name]));
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
function orderArguments(operation: SampleOperation, scenario: SampleScenario): SampleArgument[] {
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
  return sent.map((p) => valueFor(operation, p, order[p.name] ?? scenario.values[p.name]));
}

/** `name=value&…`, percent-encoded: the query string or form body the sample sends (unsigned part). */
export function encodedArguments(request: SampleRequest): string {
  return formEncode(request.arguments.map((arg) => [arg.parameter.name, arg.text]));
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
