// One HTTP round trip of the tester, and what a check may say about it. Kept apart from session.ts
// so that the checks run on every answer (phases/answer.ts) need nothing of the session itself.

import type { ContractOperation } from "../core/operations.js";
import type { ParamList, RequestPlan, WireRequest } from "../http/request.js";
import type { HttpResponse, TransportError } from "../http/transport.js";
import type { CheckName } from "./verdicts.js";

/** One HTTP round trip of the tester: the plan, the request sent, and the answer or the transport error. */
export interface RoundTrip {
  op: ContractOperation;
  case: string;
  plan: RequestPlan;
  request: WireRequest;
  response?: HttpResponse;
  error?: TransportError;
  durationMs: number;
}

/** A round trip with when it was sent and answered, by the target's clock (the session's timeline). */
export interface TimedRoundTrip {
  exchange: RoundTrip;
  sentAt: number;
  answeredAt: number;
  /** The session's clock epoch when it was sent: times of different epochs do not compare. */
  clock: number;
}

/** Where a check records its outcome for an operation (the session, which masks and counts). */
export interface Verdicts {
  pass(check: CheckName, exchange: RoundTrip): void;
  fail(check: CheckName, exchange: RoundTrip, message: string, schemaPath?: string): void;
  skip(check: CheckName, operationId: string, reason: string): void;
}

/** What the session runs on every answer, and on a request that got none (timeout, reset). */
export interface AnswerJudge {
  answer(exchange: RoundTrip, verdicts: Verdicts): void;
  noAnswer(exchange: RoundTrip, verdicts: Verdicts, message: string): void;
}

/** The response variant the request asks for (x-response-variant-by), or the declared default. */
export function variantOf(exchange: RoundTrip): string | undefined {
  const by = exchange.op.responseVariants;
  if (!by) return undefined;
  const asked = paramValue(exchange.plan.params, by.parameter);
  if (by.by === "presence") return asked === undefined ? "absent" : "present";
  if (asked === undefined) return by.default;
  return Object.hasOwn(by.refs, asked) ? asked : undefined;
}

export function paramValue(params: ParamList, name: string): string | undefined {
  return params.find(([n]) => n === name)?.[1];
}
