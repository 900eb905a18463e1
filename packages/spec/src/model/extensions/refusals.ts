// x-refusals: the status and error code of every refusal rule the spec states (docs/extensions.md).
import { isObject } from "../json.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";
import { type FactSource, readFactSource, readInteger, readObject } from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

/**
 * The rules a refusal can follow, each a request the spec says is refused. Those whose code another
 * extension names stay there: an unknown symbol or order (x-unknown-reference), a window too wide
 * (x-time-window), a bad signature or timestamp (x-signing).
 */
export const REFUSAL_RULES = {
  "missing-parameter":
    "a required parameter is absent: one the operation requires, one the order type requires (x-order-type-rules), or both ids of an order lookup",
  "malformed-value":
    "a value its schema refuses: wrong type, outside minimum/maximum, not matching the pattern or x-wire-pattern, too long",
  "unknown-enum-value": "a value its enum does not list",
  "parameter-not-required": "a parameter the order type forbids (x-order-type-rules)",
  "exclusive-parameters":
    "parameters that may not be sent together: x-mutually-exclusive, or two of an x-order-type-rules exactlyOneOf group",
  "parameter-condition": "a parameter whose x-parameter-conditions are not met",
  "repeated-item": "a list parameter (uniqueItems) naming an item twice",
  "duplicate-parameter": "one parameter sent twice",
  "recv-window-too-large": "a recvWindow above the maximum x-signing states",
  "api-key-missing": "a request that needs the API key without it",
  "api-key-invalid": "a request with an API key the server does not know",
  "filter-failure": "an order breaking a filter exchange_info announces for its symbol",
  "order-type-not-allowed": "an order of a type exchange_info does not list for its symbol",
  "would-take": "a LIMIT_MAKER order that would take liquidity",
  "duplicate-client-order-id": "a new order reusing the client order id of one of the account's open orders",
  "order-not-open": "a cancel of an order that is no longer open",
  "nothing-to-cancel": "cancel_all_orders on a symbol where the account has no open order",
  "ids-disagree": "orderId and origClientOrderId given together that name different orders",
  "too-much-weight": "a request beyond the REQUEST_WEIGHT limit",
  "too-many-orders": "a new order beyond the ORDERS limit",
  "ip-banned": "a request from an IP banned after it went on past 429s",
} as const;

export type RefusalRuleName = keyof typeof REFUSAL_RULES;

export interface RefusalRule {
  rule: RefusalRuleName;
  status: number;
  code: number;
  /** Codes of their own for some parameters (an unknown `side` is -1117, not -1100). */
  byParameter: Record<string, number>;
  /** The operations the rule applies to; undefined: every operation where it can arise. */
  operations: string[] | undefined;
}

export interface Refusals {
  filledFrom: FactSource;
  rules: RefusalRule[];
}

function readCode(object: Record<string, unknown>, key: string, where: string): number {
  const code = readInteger(object, key, where);
  if (code >= 0) throw new SpecModelError(`${where}/${key}`, "a negative error code", describeValue(code));
  return code;
}

function readRule(name: string, raw: unknown, where: string): RefusalRule {
  if (!(name in REFUSAL_RULES))
    throw new SpecModelError(
      where,
      `one of the rules ${Object.keys(REFUSAL_RULES).join(", ")}`,
      describeValue(name),
    );
  const object = readObject(raw, where, "a rule { status, code, byParameter?, operations? }");
  const status = readInteger(object, "status", where);
  if (status < 400 || status > 499)
    throw new SpecModelError(`${where}/status`, "a 4xx status", describeValue(status));
  const byParameter: Record<string, number> = {};
  if (object.byParameter !== undefined) {
    const codes = readObject(
      object.byParameter,
      `${where}/byParameter`,
      "an object of codes by parameter name",
    );
    for (const parameter of Object.keys(codes))
      byParameter[parameter] = readCode(codes, parameter, `${where}/byParameter`);
  }
  let operations: string[] | undefined;
  if (object.operations !== undefined) {
    const list = object.operations;
    // Names of operations the document does not hold are kept: a subset of the document drops some.
    if (!Array.isArray(list) || list.length === 0 || list.some((id) => typeof id !== "string" || id === ""))
      throw new SpecModelError(
        `${where}/operations`,
        "a non-empty list of operationIds",
        describeValue(list),
      );
    operations = [...(list as string[])];
  }
  return {
    rule: name as RefusalRuleName,
    status,
    code: readCode(object, "code", where),
    byParameter,
    operations,
  };
}

/** The document's `x-refusals`; undefined when absent. */
export function readRefusals(value: unknown): Refusals | undefined {
  if (value === undefined) return undefined;
  const at = "/x-refusals";
  const object = readObject(value, at, "an object { filledFrom, rules }");
  const rules = object.rules;
  if (!isObject(rules))
    throw new SpecModelError(`${at}/rules`, "an object of rules by name", describeValue(rules));
  return {
    filledFrom: readFactSource(object, at),
    rules: Object.entries(rules).map(([name, raw]) => readRule(name, raw, `${at}/rules/${name}`)),
  };
}

/** The status and code the spec names for `rule` on an operation (and parameter); undefined when it names none. */
export function refusalFor(
  refusals: Refusals | undefined,
  rule: RefusalRuleName,
  operationId: string,
  parameter?: string,
): { status: number; code: number } | undefined {
  const found = refusals?.rules.find(
    (r) => r.rule === rule && (r.operations === undefined || r.operations.includes(operationId)),
  );
  if (!found) return undefined;
  const code = parameter !== undefined ? (found.byParameter[parameter] ?? found.code) : found.code;
  return { status: found.status, code };
}

export const refusalsExtension = {
  key: "x-refusals",
  name: "refusals",
  on: "document",
  field: "SpecModel.refusals",
  constrains: ["behaviour"],
  summary: "the status and error code of every refusal rule the spec states",
  read: readRefusals,
} as const satisfies ExtensionDescriptor;

/** What `statedRefusalRules` needs of the model (kept structural, so that no cycle of imports forms). */
interface StatingModel {
  document: Record<string, unknown>;
  signing?: { recvWindowParameter: string; recvWindowMaximum: number } | undefined;
  operations: ReadonlyArray<StatingOperation>;
}

type StatingOperation = {
  operationId: string;
  apiKey: string;
  parameters: ReadonlyArray<{ name: string; required: boolean; schema: unknown }>;
  orderTypeRules?: Record<string, { forbidden?: string[]; exactlyOneOf?: string[][] }>;
  mutuallyExclusive: readonly string[][];
  parameterConditions: readonly unknown[];
  responses: ReadonlyArray<{ status: string }>;
  behaviour: { unknownReferences?: { order?: { parameters: string[] } } };
};

/**
 * The refusal rules the document states in its machine-readable parts, each with where: a
 * required parameter states missing-parameter, an enum unknown-enum-value, x-order-type-rules
 * the rules of placing orders, two ids of one order ids-disagree, a documented 429 or 418 the
 * rate limits. `unnamedRefusals` lists those x-refusals gives no code.
 */
export function statedRefusalRules(
  model: StatingModel,
  resolve: (schema: unknown) => Record<string, unknown>,
): Map<RefusalRuleName, string> {
  const stated = new Map<RefusalRuleName, string>();
  for (const op of model.operations)
    for (const [rule, where] of refusalRulesStatedBy(model, op, resolve))
      if (!stated.has(rule)) stated.set(rule, where);
  return stated;
}

/** The refusal rules one operation's machine-readable parts state, each with where (see statedRefusalRules). */
export function refusalRulesStatedBy(
  model: Pick<StatingModel, "signing">,
  op: StatingOperation,
  resolve: (schema: unknown) => Record<string, unknown>,
): Map<RefusalRuleName, string> {
  const stated = new Map<RefusalRuleName, string>();
  const state = (rule: RefusalRuleName, where: string) => {
    if (!stated.has(rule)) stated.set(rule, where);
  };
  const id = op.operationId;
  for (const p of op.parameters) {
    if (p.required) state("missing-parameter", `${id}: ${p.name} is required`);
    if (p.name === model.signing?.recvWindowParameter)
      state(
        "recv-window-too-large",
        `${id}: takes ${p.name}, at most ${model.signing.recvWindowMaximum} (x-signing)`,
      );
    const schema = resolve(p.schema);
    state("malformed-value", `${id}: ${p.name} has a schema`);
    if (Array.isArray(schema.enum)) state("unknown-enum-value", `${id}: ${p.name} is an enum`);
    if (schema.uniqueItems === true) state("repeated-item", `${id}: ${p.name} has uniqueItems`);
  }
  if (op.apiKey === "required") {
    state("api-key-missing", `${id}: the API key is required`);
    state("api-key-invalid", `${id}: the API key is required`);
  }
  const rules = Object.entries(op.orderTypeRules ?? {});
  if (rules.length > 0) {
    state("filter-failure", `${id}: places orders (x-order-type-rules)`);
    state("order-type-not-allowed", `${id}: places orders (x-order-type-rules)`);
    if (rules.some(([, r]) => (r.forbidden ?? []).length > 0))
      state("parameter-not-required", `${id}: x-order-type-rules forbids parameters`);
    if (rules.some(([, r]) => (r.exactlyOneOf ?? []).length > 0))
      state("exclusive-parameters", `${id}: x-order-type-rules exactlyOneOf`);
    if (rules.some(([type]) => type === "LIMIT_MAKER"))
      state("would-take", `${id}: x-order-type-rules has LIMIT_MAKER`);
    if (op.parameters.some((p) => p.name === "newClientOrderId"))
      state("duplicate-client-order-id", `${id}: takes newClientOrderId`);
  }
  if (op.mutuallyExclusive.length > 0) state("exclusive-parameters", `${id}: x-mutually-exclusive`);
  if (op.parameterConditions.length > 0) state("parameter-condition", `${id}: x-parameter-conditions`);
  if ((op.behaviour.unknownReferences?.order?.parameters.length ?? 0) > 1)
    state("ids-disagree", `${id}: an order named by two ids`);
  if (op.responses.some((r) => r.status === "429")) state("too-much-weight", `${id}: documents 429`);
  if (op.responses.some((r) => r.status === "418")) state("ip-banned", `${id}: documents 418`);
  return stated;
}

/** The stated refusal rules x-refusals names no code for, each with where it is stated. */
export function unnamedRefusals(
  model: StatingModel & { refusals: Refusals | undefined },
  resolve: (schema: unknown) => Record<string, unknown>,
): string[] {
  const named = new Set(model.refusals?.rules.map((r) => r.rule) ?? []);
  return [...statedRefusalRules(model, resolve)]
    .filter(([rule]) => !named.has(rule))
    .map(([rule, where]) => `${rule} (${where})`);
}
