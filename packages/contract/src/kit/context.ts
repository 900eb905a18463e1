/** What every check phase shares, and the helpers they use to judge answers. */
import { validateResponse } from "@marketapi/validators";
import { type ContractOperation, isSigned, requiresApiKey } from "../core/operations.js";
import type { Credentials, ParamList, Placement, RequestPlan } from "../http/request.js";
import type { RoundTrip, Session } from "../session/session.js";
import type { CheckName } from "../session/verdicts.js";
import { describeAnswer, errorCode, isRateLimited, ok } from "./answers.js";
import type { ClockReading } from "./clock.js";
import type { OrderLedger } from "./ledger.js";
import type { FarBuy, Market, SymbolPlan, SymbolRules } from "./market.js";
import { requiredValues, type ValueContext, type Values } from "./values.js";

export type ProgressEvent =
  | { type: "stage"; message: string }
  | {
      type: "operation";
      operationId: string;
      stage: string;
      requests: number;
      failures: number;
      /** The status every answer of the operation gave so far, when all were 404, 405 or 501. */
      notImplemented?: number;
      note?: string;
    };

export interface RunContext {
  session: Session;
  ledger: OrderLedger;
  seed: number;
  /** Trading operations may run (--allow-trading, a test Endpoint, or the embedded server). */
  trading: boolean;
  market: Market;
  rules: SymbolRules | undefined;
  /** A LIMIT BUY far below the market, or why none could be planned. */
  farBuy: FarBuy | { reason: string };
  /**
   * Every symbol the run trades (up to --max-symbols), the first being `rules`' symbol: each with
   * its market price and its far order.
   */
  symbols: SymbolPlan[];
  /** Symbols listed as not trading, each with its far order: one is sent to each, to be refused. */
  notTrading: SymbolPlan[];
  values: ValueContext;
  /**
   * Values of declared parameters the target accepts on purpose beyond the spec, with why (the
   * embedded reference server's live-API widenings); their negative cases are noted, not sent.
   */
  tolerates?: (operationId: string, parameter: string, text: string) => string | undefined;
  /** The clock the run signs with, as the start-up probe read and settled it (none without server_time). */
  clock?: RunClock;
  /** How the credentials were proven, when they were (phases/credentials.ts). */
  credentials?: CredentialProof;
  /** Requests the stateful exploration may send (--explore; 0 turns it off). */
  exploreBudget: number;
  /** A second account on the target (--second-api-key), for the isolation between accounts. */
  second?: Credentials;
  /**
   * The run may move the last price with trades between its own orders (to make stops fire): on
   * a sandbox (the embedded server, --reference-extras) or with --move-prices.
   */
  movePrices: boolean;
  /** The bounded load phase is on (--load). */
  load: boolean;
  progress(event: ProgressEvent): void;
}

/** The signed read that proved the credentials, and the signed reads that refused them before it. */
export interface CredentialProof {
  provenBy: string;
  refusedBefore: RoundTrip[];
}

/** The clock the run signs with: the offset (server minus local), what to say about it, the first reading. */
export interface RunClock {
  offsetMs: number;
  note: string;
  reading: ClockReading;
}

/** Request and failure counts of an operation, taken before a pass to report what the pass added. */
export interface PassMark {
  operationId: string;
  requests: number;
  failures: number;
}

export function markPass(ctx: RunContext, operationId: string): PassMark {
  return {
    operationId,
    requests: ctx.session.requestsOf(operationId),
    failures: ctx.session.failuresOf(operationId),
  };
}

/**
 * The progress line of a finished pass over one operation. Its failures are those of the
 * operation not yet shown on a line (failures recorded before the pass, by the start-up probe,
 * count here), so that the lines add up to the final verdicts; an operation that answered only
 * 404/405/501 so far shows as not implemented, as the final verdict will. A pass that sent the
 * operation nothing new is not shown once the operation has had requests.
 */
export function reportPass(ctx: RunContext, mark: PassMark, stage: string, note?: string): void {
  const { session } = ctx;
  const absent = session.implementation.absentSoFar(mark.operationId);
  const requests = session.requestsOf(mark.operationId) - mark.requests;
  const failures = absent === undefined ? session.takeUnshownFailures(mark.operationId) : 0;
  const quiet = requests === 0 && failures === 0 && !note && absent === undefined;
  if (quiet && session.requestsOf(mark.operationId) > 0) return;
  ctx.progress({
    type: "operation",
    operationId: mark.operationId,
    stage,
    requests,
    failures,
    ...(absent !== undefined ? { notImplemented: absent } : {}),
    ...(note ? { note } : {}),
  });
}

/** The symbols the run trades (its first alone when it trades none): the checks judge each. */
export function tradedSymbols(ctx: RunContext): string[] {
  return ctx.symbols.length > 0 ? ctx.symbols.map((plan) => plan.rules.symbol) : [ctx.values.symbol];
}

/** The plans of the symbols the run trades on which an order can rest far from the market. */
export function restingPlans(ctx: RunContext): Array<SymbolPlan & { farBuy: FarBuy }> {
  return ctx.symbols.filter((p): p is SymbolPlan & { farBuy: FarBuy } => !("reason" in p.farBuy));
}

/** The plan of every symbol the run trades; else the first symbol's alone (none when it has none). */
export function tradedPlans(ctx: RunContext): SymbolPlan[] {
  if (ctx.symbols.length > 0) return ctx.symbols;
  return ctx.rules ? [{ rules: ctx.rules, reference: undefined, farBuy: ctx.farBuy }] : [];
}

/** The rules of every symbol the run trades; else the first symbol's alone (none when it has none). */
export function tradedRules(ctx: RunContext): SymbolRules[] {
  return tradedPlans(ctx).map((plan) => plan.rules);
}

/** Why the run may not place orders on this target (trading not allowed, no credentials), or undefined. */
export function whyNoTrading(ctx: RunContext): string | undefined {
  if (!ctx.trading) return "trading not allowed: pass --allow-trading";
  if (!ctx.session.canSign) return "trading needs --api-key and --api-secret";
  return undefined;
}

/** Why the run cannot make a proper request to the operation (credentials it lacks), or undefined. */
export function cannotCall(ctx: RunContext, operation: ContractOperation): string | undefined {
  if (isSigned(operation) && !ctx.session.canSign)
    return "signed operation: needs --api-key and --api-secret";
  if (requiresApiKey(operation) && !ctx.session.credentials)
    return `x-auth-class ${operation.authClass}: needs --api-key`;
  return undefined;
}

export function op(ctx: RunContext, id: string): ContractOperation | undefined {
  return ctx.session.model.operation(id);
}

export function enabled(ctx: RunContext, check: CheckName): boolean {
  return ctx.session.recorder.enabled(check);
}

export function plan(
  operation: ContractOperation,
  params: ParamList,
  extra: Partial<RequestPlan> = {},
): RequestPlan {
  return { op: operation, params, ...extra };
}

export function withPlacement(p: RequestPlan, placement: Placement): RequestPlan {
  return { ...p, placement };
}

export interface RefusalExpectation {
  /** The error code the spec names for this case (x-signing, x-refusals, x-unknown-reference). */
  code?: number | undefined;
  /** The status the spec names for it (x-refusals); otherwise any 4xx. */
  status?: number | undefined;
  /** Other codes that are right too (a case that breaks two rules may be refused for either). */
  orCodes?: number[];
  what: string;
}

/**
 * Judges an answer that must be a refusal: a 4xx status with a body matching the operation's
 * documented error schema (and the spec's error code where it names one).
 * Returns true when the request was accepted (so callers can clean up).
 */
export function expectRefusal(
  ctx: RunContext,
  check: CheckName,
  exchange: RoundTrip,
  expectation: RefusalExpectation,
): boolean {
  const { session } = ctx;
  const operationId = exchange.op.operationId;
  const response = exchange.response;
  if (!response) {
    session.recorder.skip(check, operationId, `no answer to ${expectation.what}`);
    return false;
  }
  if (isRateLimited(exchange)) {
    session.recorder.skip(
      check,
      operationId,
      `rate limited (status ${response.status}) during ${expectation.what}`,
    );
    return false;
  }
  const status = response.status;
  if (status < 400) {
    session.fail(
      check,
      exchange,
      `${expectation.what} was accepted (status ${status}); expected a 4xx refusal`,
    );
    return status < 300;
  }
  if (status >= 500) {
    session.fail(
      check,
      exchange,
      `${expectation.what} got a server error (status ${status}); expected a 4xx refusal`,
    );
    return false;
  }
  if (response.json === undefined) {
    session.fail(
      check,
      exchange,
      `${expectation.what} was refused with status ${status} but the body is not JSON (${response.jsonError})`,
    );
    return false;
  }
  const schema = validateResponse(operationId, 400, response.json);
  if (!schema.valid) {
    const first = schema.errors[0]!;
    session.fail(
      check,
      exchange,
      `${expectation.what}: refusal body is not the documented error: ${first.message}`,
      `${first.path || "/"} [${first.rule}]`,
    );
    return false;
  }
  if (expectation.status !== undefined && status !== expectation.status) {
    session.fail(
      check,
      exchange,
      `${expectation.what} was refused with status ${status}; the spec names ${expectation.status} (code ${expectation.code})`,
    );
    return false;
  }
  const code = errorCode(exchange);
  const named = expectation.code === undefined ? [] : [expectation.code, ...(expectation.orCodes ?? [])];
  if (named.length > 0 && !named.includes(code as number)) {
    session.fail(
      check,
      exchange,
      `${expectation.what} was refused with code ${code}; the spec names ${named.join(" or ")}`,
      "/code",
    );
    return false;
  }
  session.pass(check, exchange);
  return false;
}

/** Judges an answer that must be a success (2xx), such as a request whose optional key is absent. */
export function expectServed(ctx: RunContext, check: CheckName, exchange: RoundTrip, what: string): void {
  const { session } = ctx;
  const response = exchange.response;
  if (!response) {
    session.recorder.skip(check, exchange.op.operationId, `no answer to ${what}`);
    return;
  }
  if (isRateLimited(exchange)) {
    session.recorder.skip(
      check,
      exchange.op.operationId,
      `rate limited (status ${response.status}) during ${what}`,
    );
    return;
  }
  if (ok(exchange)) session.pass(check, exchange);
  else
    session.fail(
      check,
      exchange,
      `${what} was refused (${describeAnswer(exchange)}); expected it to be served`,
    );
}

/** The required parameters plus the known order, for operations that look an order up. */
export function targetValues(operation: ContractOperation, ctx: RunContext): Values {
  const values = requiredValues(operation, ctx.values);
  if (operation.parameters.some((p) => p.name === "orderId") && ctx.values.orderId !== undefined) {
    values.orderId = ctx.values.orderId;
  }
  return values;
}
