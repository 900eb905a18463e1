/**
 * The sandbox clock: the time the whole server reads when a sandbox option is on (the exchange's
 * stamps and statistics windows, the rate-limit windows and bans, the signed requests' timestamp
 * window, `/api/v3/time`). It runs at `rate` sandbox milliseconds per real millisecond (0: paused,
 * moved only by `advanceTo`), and it never goes back, except through `rewindTo` (an admin restore).
 */

export interface SandboxClockOptions {
  /** Sandbox time to start at, epoch ms. */
  start: number;
  /** Sandbox ms per real ms: 1 real time, 60 a minute a second, 0 paused. */
  rate: number;
  /** The real clock (default: performance's monotonic clock, so a change of the system time does not jump it). */
  real?: () => number;
}

/** The largest rate: a day in under a second and a half of real time. */
export const MAX_CLOCK_RATE = 100_000;

export class SandboxClock {
  private anchor: number;
  private realAnchor: number;
  private currentRate: number;
  private readonly real: () => number;
  /** The last time read: `now` never answers less, whatever the real clock does. */
  private last: number;
  /** How far the clock may run (the simulated market's horizon), if anything holds it. */
  private limit: (() => number) | undefined;

  constructor(options: SandboxClockOptions) {
    checkRate(options.rate);
    this.real = options.real ?? (() => performance.now());
    this.anchor = options.start;
    this.realAnchor = this.real();
    this.currentRate = options.rate;
    this.last = options.start;
  }

  /** Sandbox time, epoch ms (whole): bound, so it is passed wherever a `now` function goes. */
  readonly now = (): number => {
    if (this.currentRate === 0) return this.last;
    const time = Math.floor(this.anchor + (this.real() - this.realAnchor) * this.currentRate);
    const limit = this.limit?.();
    if (limit !== undefined && time > limit) {
      // Held: from here the clock runs on at its rate from the limit once the holder catches up,
      // rather than jump to where it would have been.
      this.reanchor(Math.max(limit, this.last));
    } else if (time > this.last) this.last = time;
    return this.last;
  };

  /**
   * Lets `limit` hold the clock back: it never reads later than `limit()` while running (the
   * market it drives cannot keep up with the rate, so the clock slows to its pace). Undefined: free.
   */
  holdBy(limit: (() => number) | undefined): void {
    this.limit = limit;
  }

  get rate(): number {
    return this.currentRate;
  }

  /** Runs on at another rate from the present time (0 pauses it). */
  setRate(rate: number): void {
    checkRate(rate);
    this.reanchor(this.now());
    this.currentRate = rate;
  }

  /** Moves the clock forward to `time` (a time already passed changes nothing). */
  advanceTo(time: number): void {
    if (!Number.isSafeInteger(time))
      throw new RangeError(`a clock time must be a whole number of ms, not ${time}`);
    if (time > this.now()) this.reanchor(time);
  }

  /** Sets the clock back (or forward) to `time`: only for a restore of a whole sandbox. */
  rewindTo(time: number): void {
    this.reanchor(time);
  }

  private reanchor(time: number): void {
    this.anchor = time;
    this.realAnchor = this.real();
    this.last = time;
  }
}

function checkRate(rate: number): void {
  if (!(Number.isFinite(rate) && rate >= 0 && rate <= MAX_CLOCK_RATE)) {
    throw new RangeError(`a clock rate must be a number from 0 to ${MAX_CLOCK_RATE}, not ${rate}`);
  }
}
