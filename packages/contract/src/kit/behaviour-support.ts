/**
 * What the behaviour checks share: fetching a list answer the spec's behaviour extensions talk
 * about, reading a key at a JSON Pointer, and comparing keys (integers, or decimal text).
 */
import { valueAt } from "@marketapi/spec/model";
import { tryParseDec } from "../core/decimal.js";
import { type ContractOperation, isSigned, methodOf, requiresApiKey } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { CheckName } from "../session/verdicts.js";
import { describeAnswer, isRateLimited, ok } from "./answers.js";
import type { RunContext } from "./context.js";
import { requiredValues, type Values } from "./values.js";

export { valueAt };

/** Whether the operation reads (GET): the read checks judge its answers. */
export function isRead(operation: ContractOperation): boolean {
  return methodOf(operation) === "GET";
}

/** Why the operation cannot be called by this run, or undefined when it can. */
export function unreachable(ctx: RunContext, operation: ContractOperation): string | undefined {
  if (isSigned(operation) && !ctx.session.canSign)
    return "signed operation: needs --api-key and --api-secret";
  if (requiresApiKey(operation) && !ctx.session.credentials) return "needs --api-key";
  return undefined;
}

/** The operation's required values (the run's symbol) with `extra` on top. */
export function valuesFor(ctx: RunContext, operation: ContractOperation, extra: Values = {}): Values {
  return { ...requiredValues(operation, ctx.values), ...extra };
}

export interface Served {
  exchange: RoundTrip;
  json: unknown;
}

/**
 * Sends a valid request whose answer the check needs. A refusal fails `check` (positive data
 * must be served); no answer or a rate limit skips it. Returns the answer when served.
 */
export async function fetchServed(
  ctx: RunContext,
  check: CheckName,
  operation: ContractOperation,
  values: Values,
  label: string,
): Promise<Served | undefined> {
  const exchange = await ctx.session.call({ op: operation, params: encodeParams(operation, values) }, label);
  if (!exchange.response) {
    ctx.session.recorder.skip(check, operation.operationId, `no answer to ${label}`);
    return undefined;
  }
  if (isRateLimited(exchange)) {
    ctx.session.recorder.skip(check, operation.operationId, `rate limited during ${label}`);
    return undefined;
  }
  if (!ok(exchange) || exchange.response.json === undefined) {
    ctx.session.fail(check, exchange, `${label}: a valid request was refused (${describeAnswer(exchange)})`);
    return undefined;
  }
  return { exchange, json: exchange.response.json };
}

/** The list at `pointer` in the answer; a lone object counts as a list of one. */
export function listAt(json: unknown, pointer: string): unknown[] | undefined {
  const value = valueAt(json, pointer);
  if (Array.isArray(value)) return value;
  if (typeof value === "object" && value !== null) return [value];
  return undefined;
}

/** Negative, zero or positive as a is before, equal to or after b; undefined when not comparable. */
export function compareKeys(a: unknown, b: unknown): number | undefined {
  if (typeof a === "number" && typeof b === "number") return Math.sign(a - b);
  const x = tryParseDec(a);
  const y = tryParseDec(b);
  if (x === undefined || y === undefined) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Numeric ids of the items at `field`, or undefined if any is not an integer. */
export function idsOf(items: unknown[], field: string): number[] | undefined {
  const ids = items.map((item) => valueAt(item, field));
  return ids.every((id): id is number => typeof id === "number" && Number.isInteger(id)) ? ids : undefined;
}

export function short(list: readonly unknown[]): string {
  const text = list.slice(0, 8).map(String).join(", ");
  return list.length > 8 ? `${text}, … (${list.length})` : text;
}
