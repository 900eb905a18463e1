// One HTTP round trip of the tester, and what a check may say about it. Kept apart from session.ts
// so that the checks run on every answer (checks/answer.ts) need nothing of the session itself.
import type { ParamList, RequestPlan, WireRequest } from "./http/request.js";
import type { HttpResponse, TransportError } from "./http/transport.js";
import type { ContractOperation } from "./operations.js";
import type { CheckName } from "./results.js";

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

/** Where a check records its outcome for an operation (the session, which masks and counts). */
export interface Verdicts {
  pass(check: CheckName, exchange: RoundTrip): void;
  fail(check: CheckName, exchange: RoundTrip, message: string, schemaPath?: string): void;
  skip(check: CheckName, operationId: string, reason: string): void;
}

export function paramValue(params: ParamList, name: string): string | undefined {
  return params.find(([n]) => n === name)?.[1];
}
