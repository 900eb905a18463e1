// The errors of a call that got no usable answer: held back, timed out, or of unknown outcome.
import { SpotClientError } from "./spot-client-error.js";

/**
 * Not sent: the call would have had to wait longer than it may (`retry.maxWaitMs`) for a pause
 * the exchange asked for (429 Retry-After), a ban (418) or the pacer's budget.
 */
export class RequestHeldError extends SpotClientError {
  override name = "RequestHeldError";

  constructor(
    readonly operationId: string,
    /** When the request could have gone (epoch ms). */
    readonly until: number,
    /** What holds it: `IP banned (418)`, `Retry-After (429)`, or the pacer's budget (`REQUEST_WEIGHT 6000 per 1 MINUTE`). */
    readonly reason: string,
    readonly maxWaitMs: number,
  ) {
    super(
      `${operationId} not sent: it would wait until ${new Date(until).toISOString()} (${reason}), over retry.maxWaitMs (${maxWaitMs} ms)`,
    );
  }
}

/** No answer within the call's timeout (`timeoutMs`), on every attempt made. */
export class RequestTimeoutError extends SpotClientError {
  override name = "RequestTimeoutError";

  constructor(
    readonly operationId: string,
    readonly timeoutMs: number,
  ) {
    super(`${operationId}: no answer within ${timeoutMs} ms (timeoutMs)`);
  }
}

/** The request that may have been carried out, and the key that names its result. */
export interface UnknownOutcome {
  readonly operationId: string;
  /** The parameter that names the result (a client order id) and its value, where the spec states one. */
  readonly key?: { readonly name: string; readonly value: string };
}

/** The request of an outcome error, and the key that names its result. */
function named(outcome: UnknownOutcome): string {
  return outcome.key
    ? `${outcome.operationId} (${outcome.key.name}=${outcome.key.value})`
    : outcome.operationId;
}

/**
 * A request that changes state (placing an order) got no answer, or a 5xx, and whether it was
 * carried out could not be told: the lookup failed, or none is possible (no x-outcome-lookup, or
 * lookups turned off). It was not sent again. `key` names the result to look for later.
 */
export class OutcomeUnknownError extends SpotClientError {
  override name = "OutcomeUnknownError";
  readonly operationId: string;
  readonly key: UnknownOutcome["key"];

  constructor(outcome: UnknownOutcome, why: string, options?: { cause?: unknown }) {
    super(`${named(outcome)} may or may not have been carried out: ${why}; not sent again`, options);
    this.operationId = outcome.operationId;
    this.key = outcome.key;
  }
}

/**
 * A request that changes state got no usable answer, its lookup showed it was not carried out (after
 * its receive window had passed, so it never will be), and it may not be sent again (no attempts
 * left). Nothing was done.
 */
export class LostRequestError extends SpotClientError {
  override name = "LostRequestError";
  readonly operationId: string;
  readonly key: UnknownOutcome["key"];

  constructor(outcome: UnknownOutcome, sends: number, options?: { cause?: unknown }) {
    super(
      `${named(outcome)} was not carried out (sent ${sends}×, no answer; not found once its window passed)`,
      options,
    );
    this.operationId = outcome.operationId;
    this.key = outcome.key;
  }
}
