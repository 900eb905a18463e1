/** Why a request waits: a limit's window is spent, or the exchange asked for a pause. */
export type WaitReason = "budget" | "retry-after" | "ban";

/**
 * A request would have to wait longer than its caller allows (`maxWaitMs`, or `maxHoldMs` for a
 * pause the exchange asked for): it is not sent. Says until when and why.
 */
export class PacerWaitError extends Error {
  override readonly name = "PacerWaitError";

  constructor(
    /** The earliest time the request could go (epoch ms, the pacer's clock). */
    readonly until: number,
    readonly reason: WaitReason,
    /** What holds it, in words. */
    readonly detail: string,
    readonly maxWaitMs: number,
  ) {
    super(
      `not sent: it would wait until ${new Date(until).toISOString()} (${detail}), longer than the ${maxWaitMs} ms allowed`,
    );
  }
}
