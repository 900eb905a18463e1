// What a driver is: a generated client pointed at a server, and one call per operation of the
// spec. The calls are generic: what each operation sends is planned from the spec's model
// (planRequest, the same for every tool), and each tool has one adapter that makes any planned
// call through its generated code (`invoke`). A tool keeps a call of its own for an operation
// only where it needs a workaround there; its workarounds are declared as data
// (docs/compatibility.md is rendered from them and the suite proves each by running it).
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel, type Operation, type Parameter } from "@marketapi/spec/model";
import type { GeneratorId } from "../tools.js";

/** The bundled spec's model: the operations every driver calls. */
export const MODEL = buildSpecModel(loadOpenApi());

/** The operations of the spec, in its order. */
export const OPERATION_IDS: readonly string[] = MODEL.operations.map((operation) => operation.operationId);

export type OperationId = string;

/** The operations that take the signature (trade and user_data). */
export const SIGNED: readonly OperationId[] = MODEL.operations
  .filter((op) => op.signed)
  .map((op) => op.operationId);

/** What a call gives back: the status, the parsed body and the parameters it sent (query and body). */
export interface CallOutcome {
  status: number;
  body: unknown;
  sent: Record<string, unknown>;
}

/** What the calls share: the server, the credentials, and the order the suite works on. */
export interface CallContext {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  symbol: string;
  /** The id of the resting order the placing operation placed, for the calls that name an order. */
  orderId?: number;
}

/** A construct a generator cannot express, and the smallest code that makes the call right. */
export interface Workaround {
  /** Short key, shown in the table: "symbols", "signing". */
  key: string;
  /** The construct and what the generator does with it. */
  problem: string;
  /** What the driver does instead. */
  fix: string;
  operations: readonly OperationId[] | "all";
}

/** One parameter of a planned call, with the value it sends. */
export interface PlannedArgument {
  parameter: Parameter;
  value: unknown;
}

/** A call as planned from the spec: the operation and its arguments. */
export interface PlannedRequest {
  operation: Operation;
  arguments: PlannedArgument[];
}

export interface Driver {
  generator: GeneratorId;
  /** Points the generated client at a server (base URL, credentials, middleware). */
  connect(context: CallContext): void;
  /** Every operation of the spec: the tool's own call where it has one, else the generic one. */
  calls: Readonly<Record<OperationId, (context: CallContext) => Promise<CallOutcome>>>;
  workarounds: readonly Workaround[];
}

/** A tool's adapter: makes any planned call through its generated code. */
export interface ToolAdapter {
  generator: GeneratorId;
  connect(context: CallContext): void;
  invoke(request: PlannedRequest): Promise<CallOutcome>;
  /** Calls of the tool's own, only for operations where it needs a workaround. */
  overrides?: Readonly<Record<OperationId, (context: CallContext) => Promise<CallOutcome>>>;
  /** Which of the operations' response variants this tool asks for (one per tool, so all are run). */
  responseVariant?: string;
  workarounds: readonly Workaround[];
}

/** A LIMIT BUY far below the market, so it rests on the book until it is cancelled. */
export const RESTING_ORDER = {
  side: "BUY",
  type: "LIMIT",
  timeInForce: "GTC",
  quantity: 0.001,
  price: 30000,
} as const;

/** Optional parameters every call sends where its operation declares them. */
const OPTIONAL_SENT = new Set(["symbol", "symbols", "limit", "orderId"]);

/** The value a call sends for a parameter: from the context, the scenario, or the spec's example. */
function plannedValue(
  parameter: Parameter,
  context: CallContext,
  operation: Operation,
  variant?: string,
): unknown {
  const variants = operation.responseVariants;
  // A variant chosen by a parameter's value (newOrderRespType); one chosen by presence is left to the rest.
  if (variants?.by === "value" && parameter.name === variants.parameter && variant) return variant;
  if (operation.orderTypeRules && parameter.name in RESTING_ORDER)
    return RESTING_ORDER[parameter.name as keyof typeof RESTING_ORDER];
  if (parameter.name === "symbol") return context.symbol;
  if (parameter.name === "symbols") return [context.symbol];
  if (parameter.name === "orderId") return context.orderId;
  if (parameter.name === "limit") return 5;
  if (parameter.example !== undefined) return parameter.example;
  const values = (parameter.schema as { enum?: unknown[] }).enum;
  return values?.[0];
}

/**
 * What a call of `operation` sends: its required parameters, the common optional ones it declares
 * (symbol, symbols, limit, orderId), and for the placing operation (the one with
 * x-order-type-rules) the resting order. Of a group of mutually exclusive parameters one is sent:
 * a JSON-encoded one when the group has it (the encoding the tools get wrong), else the first.
 * A value the plan cannot find is an error naming the parameter: give it an example in the spec.
 */
export function planRequest(operation: Operation, context: CallContext, variant?: string): PlannedRequest {
  const placing = operation.orderTypeRules !== undefined;
  const wanted = operation.parameters.filter(
    (p) =>
      p.in === "query" &&
      (p.required ||
        OPTIONAL_SENT.has(p.name) ||
        (placing && p.name in RESTING_ORDER) ||
        (operation.responseVariants?.by === "value" && p.name === operation.responseVariants.parameter)),
  );
  const kept = wanted.filter((p) => {
    const group = operation.mutuallyExclusive.find((names) => names.includes(p.name));
    if (!group) return true;
    const members = wanted.filter((m) => group.includes(m.name));
    return (members.find((m) => m.encoding === "json") ?? members[0]) === p;
  });
  const planned = kept.map((parameter) => ({
    parameter,
    value: plannedValue(parameter, context, operation, variant),
  }));
  const missing = planned.filter((a) => a.value === undefined && a.parameter.required);
  if (missing.length > 0) {
    throw new Error(
      `${operation.operationId}: no value for ${missing.map((a) => a.parameter.name).join(", ")}: give the parameter an example in the spec`,
    );
  }
  return { operation, arguments: planned.filter((a) => a.value !== undefined) };
}

/** The planned arguments as name → value. */
export function argumentsOf(request: PlannedRequest, which: (a: PlannedArgument) => boolean = () => true) {
  return Object.fromEntries(request.arguments.filter(which).map((a) => [a.parameter.name, a.value]));
}

/**
 * The generated function of a tool for an operation: the export named after the operationId in
 * camel case (`ticker_price_change_statistics24hr` → tickerPriceChangeStatistics24hr), compared
 * without case, since tools differ on a letter after digits (24hr, 24Hr).
 */
export function generatedFunction<T>(
  module: Record<string, unknown>,
  generator: string,
  operationId: string,
): T {
  const wanted = operationId.replace(/[_-]+([a-z0-9])/gi, (_, c: string) => c.toUpperCase()).toLowerCase();
  const name = Object.keys(module).find((key) => key.toLowerCase() === wanted);
  if (!name || typeof module[name] !== "function")
    throw new Error(
      `${generator}: the generated client has no function for ${operationId} (looked for ${wanted})`,
    );
  return module[name] as T;
}

/** A driver from a tool's adapter: every operation of the spec, the tool's own calls where it has them. */
export function driverOf(adapter: ToolAdapter): Driver {
  const calls: Record<OperationId, (context: CallContext) => Promise<CallOutcome>> = {};
  for (const operation of MODEL.operations) {
    calls[operation.operationId] =
      adapter.overrides?.[operation.operationId] ??
      ((context) => adapter.invoke(planRequest(operation, context, adapter.responseVariant)));
  }
  return {
    generator: adapter.generator,
    connect: (context) => adapter.connect(context),
    calls,
    workarounds: adapter.workarounds,
  };
}

/** The operations that have a JSON-encoded parameter (`content: application/json`). */
export const WITH_JSON_PARAMETER: readonly OperationId[] = MODEL.operations
  .filter((op) => op.parameters.some((p) => p.encoding === "json"))
  .map((op) => op.operationId);

/**
 * The order the calls run in, so that each works: the unsigned operations first, then an order's
 * life (placed, then the signed reads, then what acts on that order by its id), then the order
 * placed again for what acts on every open order. Derived from the spec as the docs' sample
 * sequence is: a new operation takes its place without an edit here.
 */
export function callSequence(): OperationId[] {
  const ops = MODEL.operations;
  const placing = ops.filter((op) => op.orderTypeRules !== undefined);
  const account = ops.filter((op) => op.signed && op.orderTypeRules === undefined);
  const namesOrder = (op: Operation) => op.parameters.some((p) => p.name === "orderId");
  const reads = (op: Operation) => op.method === "get";
  const onEveryOrder = account.filter((op) => !reads(op) && !namesOrder(op));
  return [
    ...ops.filter((op) => !op.signed && op.orderTypeRules === undefined),
    ...placing,
    ...account.filter(reads),
    ...account.filter((op) => !reads(op) && namesOrder(op)),
    ...(onEveryOrder.length > 0 ? [...placing, ...onEveryOrder] : []),
  ].map((op) => op.operationId);
}
