/**
 * Round trips made without a server, for tests of a check's pure judgement: an operation of the
 * bundled spec's model, its parameters, and (when it was answered) the status and JSON body.
 */
import { loadOpenApi } from "@marketapi/spec";
import { buildContractModel } from "../../src/core/operations.js";
import type { ParamList } from "../../src/http/request.js";
import type { RoundTrip } from "../../src/session/round-trip.js";

export const model = buildContractModel(loadOpenApi());

/** A round trip of `operationId` with `params`; unanswered when `answer` is undefined. */
export function roundTrip(
  operationId: string,
  params: ParamList,
  answer: { status: number; json: unknown } | undefined,
): RoundTrip {
  const op = model.operation(operationId)!;
  return {
    op,
    case: "test",
    plan: { op, params },
    request: { method: "GET", url: "http://x", headers: {} },
    durationMs: 1,
    ...(answer
      ? {
          response: {
            status: answer.status,
            headers: {},
            contentType: "application/json",
            bodyText: JSON.stringify(answer.json),
            json: answer.json,
          } as NonNullable<RoundTrip["response"]>,
        }
      : {}),
  };
}
