// The pacer's clock: what time it is, and a timer. Tests and benches pass one that runs faster.

export interface PacerClock {
  /** Epoch milliseconds, on the exchange's clock where the caller knows its offset. */
  now(): number;
  /** Calls `callback` after `ms` milliseconds of this clock; returns a function that cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
}

export const systemClock: PacerClock = {
  now: () => Date.now(),
  setTimer(callback, ms) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};
