import { errorCodesOf, isObject, type WeightRule } from "@marketapi/spec/model";
import { type Operation, resolveRef, type SourcedSpecModel } from "../spec-input/spec-model.js";
import type { ClientModel } from "./client-operations.js";
import { docComment, LINE_WIDTH, propertyKey, stringLiteral } from "./typescript-source.js";

/** The text of a decimal parameter without `x-wire-pattern`: plain decimal notation. */
export const PLAIN_DECIMAL = "^-?[0-9]+(\\.[0-9]+)?$";

/** What the client runtime does with an operation beyond sending it, from the spec's extensions. */
interface OperationFacts {
  weight?: number | WeightRule;
  orders?: number;
  decimals?: Record<string, string>;
  paging?: Record<string, unknown>;
  lookup?: Record<string, unknown>;
}

/**
 * The body of facts.gen.ts: what the client runtime needs to pace, retry, page and type the
 * errors of each operation, and the API's clock, all from the spec: x-weight with its tiers, the
 * orders a request places (the operations x-refusals' too-many-orders rule names, else those with
 * x-order-type-rules), decimal parameters and their x-wire-pattern, x-cursor-paging, x-time-window
 * and x-limit, x-outcome-lookup with the lookup's unknown-order code, and x-server-time and
 * x-signing for the clock; and, as types only, the error codes the spec states (errorCodesOf).
 */
export function renderOperationFacts(model: SourcedSpecModel, client: ClientModel): string {
  // An operation that weighs 1 and states nothing else has no entry: the runtime's defaults.
  const entries = client.operations.flatMap(({ operation }) => {
    const facts = factsOf(model, operation);
    if (Object.keys(facts).length === 0) return [];
    return [`  ${propertyKey(operation.operationId)}: ${literal(facts, "  ")},`];
  });
  return [
    docComment(
      [
        "What the client does with each operation beyond sending it, read at run time: its request",
        "weight (x-weight, with its parameter tiers; 1 when absent), the orders it places, its decimal",
        "parameters and the text they must match, how it pages (x-cursor-paging, x-time-window,",
        "x-limit), how a lost answer is looked up (x-outcome-lookup).",
      ],
      "",
    ),
    entries.length === 0
      ? "export const operationFacts = {} as const;"
      : ["export const operationFacts = {", ...entries, "} as const;"].join("\n"),
    "",
    renderApiFacts(model),
    "",
    ...renderCodes(model, client),
  ].join("\n");
}

/**
 * `OperationCodes`: the error codes the spec states for each operation (errorCodesOf), as types
 * only: they type the errors, and nothing reads them at run time.
 */
function renderCodes(model: SourcedSpecModel, client: ClientModel): string[] {
  const lines = client.operations.flatMap(({ operation }) => {
    const codes = errorCodesOf(model, operation).map((c) => String(c.code));
    if (codes.length === 0) return [];
    const inline = `  ${propertyKey(operation.operationId)}: ${codes.join(" | ")};`;
    if (inline.length <= LINE_WIDTH) return [inline];
    const last = codes.length - 1;
    return [
      `  ${propertyKey(operation.operationId)}:`,
      ...codes.map((code, i) => `    | ${code}${i === last ? ";" : ""}`),
    ];
  });
  return [
    docComment(
      [
        "The error codes the spec states for each operation: x-refusals (the rules that apply to it),",
        "x-unknown-reference, x-time-window and x-signing. Types only.",
      ],
      "",
    ),
    lines.length === 0
      ? "export type OperationCodes = {};"
      : ["export type OperationCodes = {", ...lines, "};"].join("\n"),
    "",
  ];
}

function renderApiFacts(model: SourcedSpecModel): string {
  const clock = model.operations.find((op) => op.behaviour.serverTime !== undefined);
  const signing = model.signing;
  const facts = {
    clock: clock ? { operation: clock.operationId, field: clock.behaviour.serverTime!.field } : null,
    recvWindowDefault: signing?.recvWindowDefault ?? null,
    invalidTimestampCode: signing?.invalidTimestampCode ?? null,
  };
  return [
    docComment(
      [
        "The API's clock: the operation whose answer holds the server's time, and where (x-server-time);",
        "the receive window a signed request has when it sends none, and the code of a timestamp outside",
        "it (x-signing). `null` where the spec states none.",
      ],
      "",
    ),
    `export const apiFacts = ${literal(facts, "")} as const;`,
  ].join("\n");
}

function factsOf(model: SourcedSpecModel, operation: Operation): OperationFacts {
  const rule = operation.weightRule;
  const facts: OperationFacts = {};
  if (rule.parameter !== undefined) facts.weight = rule;
  else if (rule.weight !== 1) facts.weight = rule.weight;
  if (placesOrders(model, operation)) facts.orders = 1;
  const decimals = decimalParameters(model, operation);
  if (Object.keys(decimals).length > 0) facts.decimals = decimals;
  const paging = pagingOf(operation);
  if (paging) facts.paging = paging;
  const lookup = operation.behaviour.outcomeLookup;
  if (lookup) {
    const target = model.operations.find((op) => op.operationId === lookup.operation)!;
    facts.lookup = {
      operation: lookup.operation,
      key: lookup.key,
      parameters: lookup.parameters,
      absentCode: target.behaviour.unknownReferences!.order!.code,
    };
  }
  return facts;
}

/** Whether a request places an order: counted against the ORDERS limits. */
function placesOrders(model: SourcedSpecModel, operation: Operation): boolean {
  const rule = model.refusals?.rules.find((r) => r.rule === "too-many-orders");
  if (rule?.operations) return rule.operations.includes(operation.operationId);
  return operation.orderTypeRules !== undefined;
}

/** The query, path and header parameters of type number, each with the text its value must match. */
export function decimalParameters(model: SourcedSpecModel, operation: Operation): Record<string, string> {
  const found: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    if (parameter.encoding === "json" || parameter.in === "cookie") continue;
    const schema = resolveRef(model, parameter.schema, parameter.schemaPointer);
    if (isObject(schema) && schema.type === "number")
      found[parameter.name] = parameter.wirePattern ?? PLAIN_DECIMAL;
  }
  return found;
}

function pagingOf(operation: Operation): Record<string, unknown> | undefined {
  const { cursorPaging, timeWindow, limit } = operation.behaviour;
  if (!cursorPaging && !timeWindow) return undefined;
  const paging: Record<string, unknown> = {};
  if (cursorPaging)
    paging.cursor = {
      parameter: cursorPaging.parameter,
      field: cursorPaging.field,
      inclusive: cursorPaging.inclusive,
    };
  if (timeWindow)
    paging.window = {
      start: timeWindow.start,
      end: timeWindow.end,
      field: timeWindow.field,
      ...(timeWindow.maxSpanMs !== undefined ? { maxSpanMs: timeWindow.maxSpanMs } : {}),
    };
  if (limit) paging.limit = { parameter: limit.parameter, maximum: limit.maximum };
  return paging;
}

/** A value as a TypeScript literal, on one line when it fits, else one member a line. */
function literal(value: unknown, indent: string): string {
  const inline = oneLine(value);
  const primitives = Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null);
  if (
    indent.length + inline.length + 40 <= LINE_WIDTH ||
    typeof value !== "object" ||
    value === null ||
    primitives
  )
    return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value))
    return `[\n${value.map((v) => `${inner}${literal(v, inner)},`).join("\n")}\n${indent}]`;
  const members = Object.entries(value).map(([k, v]) => `${inner}${propertyKey(k)}: ${literal(v, inner)},`);
  return `{\n${members.join("\n")}\n${indent}}`;
}

function oneLine(value: unknown): string {
  if (typeof value === "string") return stringLiteral(value);
  if (value === null) return "null";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return `[${value.map(oneLine).join(", ")}]`;
  const members = Object.entries(value).map(([k, v]) => `${propertyKey(k)}: ${oneLine(v)}`);
  return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
}
