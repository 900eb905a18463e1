// What a call does after an answer that is not final, loaded on first use (README, "Retries"): it
// waits out a 429's Retry-After or a 418's ban, sends an idempotent request again after a 5xx, a
// timeout or a lost connection, measures the clock again after a refused timestamp, and looks up a
// request that changes state and whose outcome is unknown before it is ever sent again.

import {
  type CallPlan,
  type ConductEnvironment,
  errorCode,
  type LookedUpResult,
  loadLookUp,
  type RawResult,
  type RetryReason,
  type SendOutcome,
  sendAdmitted,
  sleep,
} from "./call-conduct.js";
import { LostRequestError, OutcomeUnknownError, RequestTimeoutError } from "./call-errors.js";
import { backoffMs } from "./retry-policy.js";

const BAN_MS = 120_000;
const MAX_BAN_MS = 3 * 86_400_000;

/** Carries the call on from its first send's outcome to its final answer, or a lookup's. */
export async function recover(
  plan: CallPlan,
  env: ConductEnvironment,
  first: SendOutcome,
): Promise<RawResult | LookedUpResult> {
  const { policy } = env;
  let sent = 0;
  let clockRetried = false;
  for (let outcome = first; ; outcome = await sendAdmitted(plan, env)) {
    sent++;
    if (!env.pacer && "result" in outcome) holdFor(outcome.result.response, env);

    if ("result" in outcome) {
      const { result } = outcome;
      const status = result.response.status;
      if (status === 429 || status === 418) {
        const wait = pauseOf(result.response, status, env);
        if (sent > policy.attempts || wait > policy.maxWaitMs) return result;
        // The pause is a hold of every request (the pacer's or the client's): the next admit waits it out.
        await resendAfter(plan, env, sent, status === 429 ? "429" : "418", wait);
        continue;
      }
      if (
        env.remeasureClock &&
        policy.clock &&
        !clockRetried &&
        outcome.signed &&
        errorCode(result) === env.invalidTimestampCode
      ) {
        // A refused timestamp was not carried out: measure the clock again and send once more.
        clockRetried = true;
        env.onRetry?.({ operationId: plan.operationId, sent, reason: "clock", waitMs: 0 });
        await env.remeasureClock();
        continue;
      }
      if (status < 500) return result;
      if (plan.idempotent) {
        if (sent > policy.attempts) return result;
        await resendAfter(plan, env, sent, "5xx", retryAfterOf(result.response) ?? backoffMs(policy, sent));
        continue;
      }
      if (!plan.lookup || !policy.lookups) return result;
    } else if (plan.idempotent) {
      if (sent > policy.attempts) throw lostError(plan, outcome);
      await resendAfter(
        plan,
        env,
        sent,
        outcome.timedOut ? "timeout" : "connection",
        backoffMs(policy, sent),
      );
      continue;
    } else if (!plan.lookup || !policy.lookups) {
      const why = plan.lookup ? "retry.lookups is off" : "the spec states no x-outcome-lookup";
      throw new OutcomeUnknownError(plan.outcome, `no answer, and ${why}`, { cause: outcome.error });
    }

    // A request that changes state, whose outcome is unknown: look it up before any resend.
    const found = await (await loadLookUp())(plan, env, outcome.signed, sent);
    if (found) return found;
    if (sent > policy.attempts)
      throw new LostRequestError(plan.outcome, sent, {
        cause: "error" in outcome ? outcome.error : undefined,
      });
    await resendAfter(plan, env, sent, "lookup", 0);
  }
}

/** Tells `onRetry` of the wait before the next send, and waits. */
function resendAfter(
  plan: CallPlan,
  env: ConductEnvironment,
  sent: number,
  reason: RetryReason,
  waitMs: number,
): Promise<void> {
  env.onRetry?.({ operationId: plan.operationId, sent, reason, waitMs });
  return sleep(waitMs, plan.signal);
}

/** The error of an idempotent call whose every send got no answer. */
function lostError(plan: CallPlan, outcome: { error: unknown; timedOut: boolean }): unknown {
  return outcome.timedOut ? new RequestTimeoutError(plan.operationId, plan.timeoutMs) : outcome.error;
}

/** Without a pacer: a 418 holds every request of the client until its ban ends, a 429 until its Retry-After. */
function holdFor(response: Response, env: ConductEnvironment): void {
  if (response.status !== 418 && response.status !== 429) return;
  const retryAfter = retryAfterOf(response);
  if (response.status === 429 && retryAfter === undefined) return;
  const until = Date.now() + pauseOf(response, response.status, env);
  if (until <= env.hold.until) return;
  env.hold.until = until;
  env.hold.reason = response.status === 418 ? "IP banned (418)" : "Retry-After (429)";
}

/** How long a 429 or 418 asks every request to wait. */
function pauseOf(response: Response, status: number, env: ConductEnvironment): number {
  const retryAfter = retryAfterOf(response);
  if (status === 418) return Math.min(retryAfter ?? BAN_MS, MAX_BAN_MS);
  return retryAfter ?? backoffMs(env.policy, 1);
}

function retryAfterOf(response: Response): number | undefined {
  const text = response.headers.get("retry-after")?.trim();
  if (!text) return undefined;
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
