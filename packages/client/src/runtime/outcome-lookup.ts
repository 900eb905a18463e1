// The lookup of a request that changes state and whose outcome is unknown (x-outcome-lookup),
// loaded on first use: it runs only when a connection dropped or a 5xx came back.

import {
  type CallPlan,
  type ConductEnvironment,
  errorCode,
  type LookedUpResult,
  type RawResult,
  type Signed,
  sleep,
} from "./call-conduct.js";
import { OutcomeUnknownError } from "./call-errors.js";

/** After a request's receive window, the time allowed for the server's clock to be ahead of ours. */
const EXPIRY_MARGIN_MS = 1000;

/**
 * Looks the request up: found, its result; not found, a second lookup once the request's receive
 * window has passed (the server can no longer accept it), and undefined when that one does not
 * find it either: the request was not carried out and may be sent again.
 */
export async function lookUp(
  plan: CallPlan,
  env: ConductEnvironment,
  signed: Signed | undefined,
  sent: number,
): Promise<LookedUpResult | undefined> {
  const { fact, run } = plan.lookup!;
  const look = async (): Promise<LookedUpResult | "absent"> => {
    let answer: RawResult;
    try {
      answer = await run();
    } catch (error) {
      throw new OutcomeUnknownError(plan.outcome, "its lookup failed", { cause: error });
    }
    if (answer.response.ok) return { lookedUp: answer.data, response: answer.response };
    if (errorCode(answer) === fact.absentCode) return "absent";
    const status = answer.response.status;
    throw new OutcomeUnknownError(
      plan.outcome,
      `its lookup (${fact.operation}) answered ${status}${errorCode(answer) !== undefined ? ` ${errorCode(answer)}` : ""}`,
      { cause: answer.error },
    );
  };
  const first = await look();
  if (first !== "absent") return first;
  if (!signed)
    throw new OutcomeUnknownError(
      plan.outcome,
      `${fact.operation} does not find it yet, and the request carries no timestamp after which the server would refuse it`,
    );
  const wait = signed.timestamp + signed.window + EXPIRY_MARGIN_MS - env.signingNow();
  if (wait > 0) {
    env.onRetry?.({ operationId: plan.operationId, sent, reason: "lookup", waitMs: wait });
    await sleep(wait, plan.signal);
  }
  const second = await look();
  return second === "absent" ? undefined : second;
}
