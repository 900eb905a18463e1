// One call from first send to final result: admitted by the pacer or the client's own holds, sent
// with a timeout, retried when that is safe, and, for a request that changes state and whose
// outcome is unknown, looked up before it is ever sent again (README, "Retries").

import type { Pacer, Permit, WeightRule } from "@marketapi/pacer";
import {
  LostRequestError,
  OutcomeUnknownError,
  RequestHeldError,
  RequestTimeoutError,
  type UnknownOutcome,
} from "./call-errors.js";
import type { LookupFact } from "./call-facts.js";
import { backoffMs, type RetryPolicy } from "./retry-policy.js";

/** What openapi-fetch resolves to. */
export interface RawResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The result of a request whose answer was lost and that its lookup found. */
export interface LookedUpResult {
  lookedUp: unknown;
  response: Response;
}

/** A signed request's timestamp and receive window: after both, the server can no longer accept it. */
export interface Signed {
  readonly timestamp: number;
  readonly window: number;
}

/** One send: resolves to the answer, or rejects with a `LostAnswer` when none came. */
export type Attempt = (signal: AbortSignal | undefined) => Promise<{ result: RawResult; signed?: Signed }>;

/** The send failed on the way: no answer (a dropped connection, a timeout, a body that could not be read). */
export class LostAnswer {
  constructor(
    readonly error: unknown,
    /** The request's timestamp and window, when it was signed. */
    readonly signed?: Signed,
  ) {}
}

/** Why a call waits before sending again. */
export type RetryReason = "429" | "418" | "5xx" | "timeout" | "connection" | "clock" | "lookup";

/** Told of every wait and resend of a call (`onRetry`). */
export interface RetryEvent {
  readonly operationId: string;
  /** Sends made so far. */
  readonly sent: number;
  readonly reason: RetryReason;
  /** How long the call waits before its next step. */
  readonly waitMs: number;
}

/** A pause every request of the client waits out (without a pacer: a 429's Retry-After, a 418 ban). */
export interface Hold {
  until: number;
  /** In words: `IP banned (418)`, `Retry-After (429)`. */
  reason: string;
}

/** What does not change between the calls of one client. */
export interface ConductEnvironment {
  readonly policy: RetryPolicy;
  readonly pacer: Pacer | undefined;
  readonly hold: Hold;
  readonly account: string;
  /** The clock timestamps are signed with (corrected when `syncClock`). */
  readonly signingNow: () => number;
  /** Measures the server's clock again after a -1021; undefined without `syncClock`. */
  readonly remeasureClock: (() => Promise<void>) | undefined;
  readonly invalidTimestampCode: number | null;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
}

/** One call. */
export interface CallPlan {
  readonly operationId: string;
  /** Whether sending it twice has the effect of sending it once (its HTTP method). */
  readonly idempotent: boolean;
  /** Its request weight (x-weight), which the pacer reads with `params`. */
  readonly weight: number | WeightRule;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly orders: number;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  /** How to look up its result when its outcome is unknown, and the request's key. */
  readonly lookup: { readonly fact: LookupFact; readonly run: () => Promise<RawResult> } | undefined;
  readonly outcome: UnknownOutcome;
}

const BAN_MS = 120_000;
const MAX_BAN_MS = 3 * 86_400_000;

let lookUpModule: Promise<typeof import("./outcome-lookup.js")> | undefined;

/**
 * The lookup, loaded on first use (outside the default import). Calls that may need it load it
 * when they start, so that it is there when their connection drops.
 */
export function loadLookUp(): Promise<typeof import("./outcome-lookup.js")["lookUp"]> {
  lookUpModule ??= import("./outcome-lookup.js");
  return lookUpModule.then((module) => module.lookUp);
}

/** Sends the call, retrying and looking up as the policy allows; the final answer, or a lookup's. */
export async function conductCall(
  plan: CallPlan,
  env: ConductEnvironment,
  attempt: Attempt,
): Promise<RawResult | LookedUpResult> {
  const { policy } = env;
  let sent = 0;
  let clockRetried = false;
  for (;;) {
    plan.signal?.throwIfAborted();
    // Without a pacer and with no hold, nothing to wait for: no promise to await.
    const permit = env.pacer || env.hold.until > Date.now() ? await admit(plan, env) : undefined;
    const outcome = await sendOnce(plan, attempt);
    sent++;
    const answer = "result" in outcome ? outcome.result.response : undefined;
    permit?.settle(answer ? { status: answer.status, headers: answer.headers } : { status: 0 });
    if (!env.pacer && answer) holdFor(answer, env);

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

type SendOutcome =
  | { result: RawResult; signed?: Signed }
  | { error: unknown; timedOut: boolean; signed?: Signed };

async function sendOnce(plan: CallPlan, attempt: Attempt): Promise<SendOutcome> {
  const slot = plan.timeoutMs > 0 ? joinSlot(plan.timeoutMs) : undefined;
  // A caller's signal and the timeout meet in a controller of the send's own; without a caller's
  // signal the send takes the shared one, and without a timeout either, none, as a plain fetch.
  const own = plan.signal ? new AbortController() : undefined;
  const follow =
    own && (() => own.abort((plan.signal?.aborted ? plan.signal : slot!.controller.signal).reason));
  if (follow) {
    plan.signal!.addEventListener("abort", follow);
    slot?.controller.signal.addEventListener("abort", follow);
  }
  try {
    return await attempt(own?.signal ?? slot?.controller.signal);
  } catch (error) {
    if (plan.signal?.aborted) throw plan.signal.reason;
    if (!(error instanceof LostAnswer)) throw error;
    const timedOut = slot?.controller.signal.aborted === true;
    return {
      error: timedOut ? new RequestTimeoutError(plan.operationId, plan.timeoutMs) : error.error,
      timedOut,
      ...(error.signed ? { signed: error.signed } : {}),
    };
  } finally {
    if (slot && --slot.pending === 0) slot.timer.unref?.();
    if (follow) {
      plan.signal!.removeEventListener("abort", follow);
      slot?.controller.signal.removeEventListener("abort", follow);
    }
  }
}

/**
 * Sends whose deadlines fall in the same slice of time share one AbortController and one timer:
 * a timer and a controller per send cost more than the rest of the client's own work on a call.
 * A slice is 1/64 of the timeout (at least 1 ms) and its timer fires at the slice's end, so a send
 * times out at its deadline or at most one slice later, never earlier. The timer keeps the process
 * alive only while a send of its slice is under way.
 */
interface Slot {
  readonly controller: AbortController;
  readonly timer: ReturnType<typeof setTimeout>;
  pending: number;
  joined: number;
}

const slots = new Map<number, Slot>();
/** Sends per shared signal: fetch adds a listener to it per request, and warns past 1,500. */
const SENDS_PER_SLOT = 1000;

function joinSlot(timeoutMs: number): Slot {
  const width = Math.max(1, Math.floor(timeoutMs / 64));
  const end = Math.ceil((Date.now() + timeoutMs) / width) * width;
  let slot = slots.get(end);
  if (!slot || slot.joined >= SENDS_PER_SLOT) {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      if (slots.get(end)?.controller === controller) slots.delete(end);
      controller.abort(new DOMException("The send took longer than its timeoutMs", "TimeoutError"));
    }, end - Date.now());
    slot = { controller, timer, pending: 0, joined: 0 };
    slots.set(end, slot);
  }
  if (slot.pending++ === 0) slot.timer.ref?.();
  slot.joined++;
  return slot;
}

/** The error of an idempotent call whose every send got no answer. */
function lostError(plan: CallPlan, outcome: { error: unknown; timedOut: boolean }): unknown {
  return outcome.timedOut ? new RequestTimeoutError(plan.operationId, plan.timeoutMs) : outcome.error;
}

/**
 * Waits for the pacer's budget (as long as it takes: pacing is the point), or for a pause the
 * exchange asked for, the pacer's or the client's own; refuses a pause longer than `maxWaitMs`.
 */
async function admit(plan: CallPlan, env: ConductEnvironment): Promise<Permit | undefined> {
  const maxWaitMs = env.policy.maxWaitMs;
  if (env.pacer) {
    try {
      return await env.pacer.acquire(
        { weight: plan.weight, params: plan.params, orders: plan.orders, account: env.account },
        { maxHoldMs: maxWaitMs, ...(plan.signal ? { signal: plan.signal } : {}) },
      );
    } catch (error) {
      const wait = error as { name?: string; until: number; detail: string };
      if (wait?.name !== "PacerWaitError") throw error;
      throw new RequestHeldError(plan.operationId, wait.until, wait.detail, maxWaitMs);
    }
  }
  // A hold may start or grow while the call waits (another call's 418): wait until none is left.
  for (let wait = env.hold.until - Date.now(); wait > 0; wait = env.hold.until - Date.now()) {
    if (wait > maxWaitMs)
      throw new RequestHeldError(plan.operationId, env.hold.until, env.hold.reason, maxWaitMs);
    await sleep(wait, plan.signal);
  }
  return undefined;
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

export function errorCode(result: RawResult): number | undefined {
  const code = (result.error as { code?: unknown } | undefined)?.code;
  return typeof code === "number" ? code : undefined;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
