// One call from first send to final result: admitted by the pacer or the client's own holds, sent
// with a timeout, retried when that is safe, and, for a request that changes state and whose
// outcome is unknown, looked up before it is ever sent again (README, "Retries").

import type { Pacer, Permit, WeightRule } from "@marketapi/pacer";
import { RequestHeldError, RequestTimeoutError, type UnknownOutcome } from "./call-errors.js";
import type { LookupFact } from "./call-facts.js";
import type { RetryPolicy } from "./retry-policy.js";

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

/**
 * One send of a call: resolves to the answer, or rejects with a `LostAnswer` when none came. It
 * gives fetch `signal`; with a `deadline`, it passes what fetch returns through `byDeadline`. One
 * function per client, which reads what to send from the plan (no closure per call).
 */
export type Attempt = (
  plan: CallPlan,
  signal: AbortSignal | undefined,
  deadline: Deadline | undefined,
) => Promise<{ result: RawResult; signed?: Signed }>;

/** Sends that end at a shared deadline without an abort signal: each rejects with the timeout when it comes. */
export interface Deadline {
  readonly waiting: Set<(reason: unknown) => void>;
}

/**
 * A send that ends at its deadline when fetch has no signal to end it: whichever settles first.
 * The deadline holds the send only until it settles (a race with a shared promise would keep
 * every send's reaction until the deadline).
 */
export function byDeadline<T>(sending: Promise<T>, deadline: Deadline | undefined): Promise<T> {
  if (!deadline) return sending;
  return new Promise<T>((resolve, reject) => {
    deadline.waiting.add(reject);
    sending.then(
      (value) => {
        deadline.waiting.delete(reject);
        resolve(value);
      },
      (error: unknown) => {
        deadline.waiting.delete(reject);
        reject(error);
      },
    );
  });
}

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

/**
 * Until when sends give fetch an abort signal (0: not since the client started).
 *
 * fetch spends about 20 µs on a request's signal, as much as the rest of the client's own work on a
 * call. So while answers come in time a send gives fetch none, and its timeout is a race: the call
 * ends at its deadline, and the request, should the server answer later, is read and dropped (or
 * closed by fetch's own limits). Once a send has timed out, sends give fetch the signal for the next
 * `ABORTING_MS`: a server that stops answering keeps open only the requests that were in flight
 * when it stopped, and the client pays for signals only while it is stalled.
 */
export interface Stalls {
  abortUntil: number;
}

/** How long after a timeout sends give fetch an abort signal. */
export const ABORTING_MS = 60_000;

/** What does not change between the calls of one client. */
export interface ConductEnvironment {
  readonly policy: RetryPolicy;
  readonly pacer: Pacer | undefined;
  readonly hold: Hold;
  readonly stalls: Stalls;
  readonly account: string;
  /** The clock timestamps are signed with (corrected when `syncClock`). */
  readonly signingNow: () => number;
  /** Measures the server's clock again after a -1021; undefined without `syncClock`. */
  readonly remeasureClock: (() => Promise<void>) | undefined;
  readonly invalidTimestampCode: number | null;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  /** Sends one request of a call. */
  readonly attempt: Attempt;
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

let lookUpModule: Promise<typeof import("./outcome-lookup.js")> | undefined;

/**
 * The lookup, loaded on first use (outside the default import). Calls that may need it load it
 * when they start, so that it is there when their connection drops.
 */
export function loadLookUp(): Promise<typeof import("./outcome-lookup.js")["lookUp"]> {
  lookUpModule ??= import("./outcome-lookup.js");
  return lookUpModule.then((module) => module.lookUp);
}

let recoveryModule: Promise<typeof import("./call-recovery.js")> | undefined;

/**
 * What a call does after an answer that is not final (a 429, a 418, a 5xx, a refused timestamp, no
 * answer): loaded on first use, outside the default import. A client loads it with its first call,
 * so that it is there when a connection drops.
 */
export function loadRecovery(): Promise<typeof import("./call-recovery.js")> {
  recoveryModule ??= import("./call-recovery.js");
  return recoveryModule;
}

/**
 * Sends the call, retrying and looking up as the policy allows; the final answer, or a lookup's.
 * Without a pacer and with no hold, the first send is made here, in this one async step, and so
 * is its answer returned (the path of most calls: no promise of a step in between).
 */
export function conductCall(plan: CallPlan, env: ConductEnvironment): Promise<RawResult | LookedUpResult> {
  if (plan.signal?.aborted) return Promise.reject(plan.signal.reason);
  if (admitsAtOnce(env)) return sendFirst(plan, env);
  return conductAdmitted(plan, env);
}

/** Without a pacer and with no hold, a send has nothing to wait for, and nobody to tell of its answer. */
function admitsAtOnce(env: ConductEnvironment): boolean {
  return !env.pacer && env.hold.until <= Date.now();
}

/** sendOnce written out in the caller's own step: awaiting sendOnce would cost a promise per call. */
async function sendFirst(plan: CallPlan, env: ConductEnvironment): Promise<RawResult | LookedUpResult> {
  const sending = startSend(plan, env.stalls);
  let outcome: SendOutcome;
  try {
    outcome = await env.attempt(plan, sending.signal, sending.deadline);
  } catch (error) {
    outcome = lostOutcome(plan, env.stalls, sending, error);
  } finally {
    endSend(plan, sending);
  }
  if ("result" in outcome && isFinal(outcome, env)) return outcome.result;
  return (await loadRecovery()).recover(plan, env, outcome);
}

async function conductAdmitted(plan: CallPlan, env: ConductEnvironment): Promise<RawResult | LookedUpResult> {
  const outcome = await sendPermitted(plan, env);
  if ("result" in outcome && isFinal(outcome, env)) return outcome.result;
  return (await loadRecovery()).recover(plan, env, outcome);
}

/** One send, once the pacer or the client's holds let it go; the pacer learns of its answer. */
export function sendAdmitted(plan: CallPlan, env: ConductEnvironment): Promise<SendOutcome> {
  if (plan.signal?.aborted) return Promise.reject(plan.signal.reason);
  if (admitsAtOnce(env)) return sendOnce(plan, env);
  return sendPermitted(plan, env);
}

async function sendPermitted(plan: CallPlan, env: ConductEnvironment): Promise<SendOutcome> {
  const permit = await admit(plan, env);
  const outcome = await sendOnce(plan, env);
  const answer = "result" in outcome ? outcome.result.response : undefined;
  permit?.settle(answer ? { status: answer.status, headers: answer.headers } : { status: 0 });
  return outcome;
}

/** An answer the call returns as it is: not a 429 or 418, not a 5xx, not a refused timestamp it may send again. */
function isFinal(outcome: { result: RawResult; signed?: Signed }, env: ConductEnvironment): boolean {
  const status = outcome.result.response.status;
  if (status === 429 || status === 418 || status >= 500) return false;
  return !(
    env.remeasureClock &&
    env.policy.clock &&
    outcome.signed &&
    errorCode(outcome.result) === env.invalidTimestampCode
  );
}

export type SendOutcome =
  | { result: RawResult; signed?: Signed }
  | { error: unknown; timedOut: boolean; signed?: Signed };

async function sendOnce(plan: CallPlan, env: ConductEnvironment): Promise<SendOutcome> {
  const sending = startSend(plan, env.stalls);
  try {
    return await env.attempt(plan, sending.signal, sending.deadline);
  } catch (error) {
    return lostOutcome(plan, env.stalls, sending, error);
  } finally {
    endSend(plan, sending);
  }
}

/** What one send gives fetch, and what it holds until it settles. */
interface Sending {
  readonly slot: Slot | undefined;
  /** What fetch is given: the send's own controller's, the slot's while stalled, or none. */
  readonly signal: AbortSignal | undefined;
  /** The slot, when the send races it instead of giving fetch its signal. */
  readonly deadline: Deadline | undefined;
  /** Aborts the send's own controller, following the caller's signal and the slot's. */
  readonly follow: (() => void) | undefined;
}

/** No timeout, no signal: a send as a plain fetch. */
const UNBOUNDED: Sending = { slot: undefined, signal: undefined, deadline: undefined, follow: undefined };

/**
 * A send's timeout and signal. A caller's signal and the timeout meet in a controller of the
 * send's own; without a caller's signal the send takes the shared one while the client is stalled,
 * and races the shared deadline otherwise (Stalls); without a timeout either, nothing, as a plain
 * fetch.
 */
function startSend(plan: CallPlan, stalls: Stalls): Sending {
  const slot = plan.timeoutMs > 0 ? joinSlot(plan.timeoutMs) : undefined;
  if (!plan.signal) {
    if (!slot) return UNBOUNDED;
    // The slot is its own deadline (a Deadline), so no object per send on the common path.
    if (Date.now() >= stalls.abortUntil) return slot.racing;
    return { slot, signal: slot.controller.signal, deadline: undefined, follow: undefined };
  }
  const own = new AbortController();
  const signal = plan.signal;
  const follow = () => own.abort((signal.aborted ? signal : slot!.controller.signal).reason);
  signal.addEventListener("abort", follow);
  slot?.controller.signal.addEventListener("abort", follow);
  return { slot, signal: own.signal, deadline: undefined, follow };
}

/** The outcome of a send that got no answer; other faults (of the call's own) are thrown. */
function lostOutcome(plan: CallPlan, stalls: Stalls, sending: Sending, error: unknown): SendOutcome {
  if (plan.signal?.aborted) throw plan.signal.reason;
  if (!(error instanceof LostAnswer)) throw error;
  const timedOut = sending.slot?.controller.signal.aborted === true;
  if (timedOut) stalls.abortUntil = Date.now() + ABORTING_MS;
  return {
    error: timedOut ? new RequestTimeoutError(plan.operationId, plan.timeoutMs) : error.error,
    timedOut,
    ...(error.signed ? { signed: error.signed } : {}),
  };
}

function endSend(plan: CallPlan, { slot, follow }: Sending): void {
  if (slot && --slot.pending === 0) slot.timer.unref?.();
  if (follow) {
    plan.signal!.removeEventListener("abort", follow);
    slot?.controller.signal.removeEventListener("abort", follow);
  }
}

/**
 * Sends whose deadlines fall in the same slice of time share one AbortController and one timer:
 * a timer and a controller per send cost more than the rest of the client's own work on a call.
 * A slice is 1/64 of the timeout (at least 1 ms) and its timer fires at the slice's end, so a send
 * times out at its deadline or at most one slice later, never earlier. The timer keeps the process
 * alive only while a send of its slice is under way.
 */
interface Slot extends Deadline {
  readonly controller: AbortController;
  readonly timer: ReturnType<typeof setTimeout>;
  pending: number;
  joined: number;
  /** How a send without a signal of its own takes this slot: racing its deadline. */
  readonly racing: Sending;
}

const slots = new Map<number, Slot>();
/**
 * Sends per shared signal. fetch (undici) adds an abort listener to it per request and removes it
 * only when the request is garbage-collected, and each addEventListener walks the listeners
 * already there: at 1,000 sends to a signal that walk cost more than the rest of a send's own work
 * (a Request built with such a signal took two to three times as long as one without); at 64 it is small,
 * and a controller and a timer per 64 sends cost little.
 */
const SENDS_PER_SLOT = 64;

function joinSlot(timeoutMs: number): Slot {
  const width = Math.max(1, Math.floor(timeoutMs / 64));
  const end = Math.ceil((Date.now() + timeoutMs) / width) * width;
  let slot = slots.get(end);
  if (!slot || slot.joined >= SENDS_PER_SLOT) {
    const controller = new AbortController();
    const waiting = new Set<(reason: unknown) => void>();
    const timer = setTimeout(() => {
      if (slots.get(end)?.controller === controller) slots.delete(end);
      controller.abort(new DOMException("The send took longer than its timeoutMs", "TimeoutError"));
      for (const reject of waiting) reject(controller.signal.reason);
    }, end - Date.now());
    const made: Omit<Slot, "racing"> & { racing?: Sending } = {
      controller,
      waiting,
      timer,
      pending: 0,
      joined: 0,
    };
    made.racing = { slot: made as Slot, signal: undefined, deadline: made as Slot, follow: undefined };
    slot = made as Slot;
    slots.set(end, slot);
  }
  if (slot.pending++ === 0) slot.timer.ref?.();
  slot.joined++;
  return slot;
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
