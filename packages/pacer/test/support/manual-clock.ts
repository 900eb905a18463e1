// A clock the test moves by hand: timers fire when it passes their time, in order.
import type { PacerClock } from "../../src/index.js";

export interface ManualClock extends PacerClock {
  /** Moves the clock forward, firing the timers due on the way; resolves after their effects settle. */
  advance(ms: number): Promise<void>;
  /** Moves to the next timer's time and fires it; false when none is set. */
  next(): Promise<boolean>;
  pending(): number;
}

export function manualClock(start = 0): ManualClock {
  let time = start;
  let id = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const due = () => [...timers.entries()].sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
  return {
    now: () => time,
    setTimer(callback, ms) {
      const key = ++id;
      timers.set(key, { at: time + ms, callback });
      return () => timers.delete(key);
    },
    async advance(ms) {
      const target = time + ms;
      await settle();
      for (let timer = due(); timer && timer[1].at <= target; timer = due()) {
        timers.delete(timer[0]);
        time = Math.max(time, timer[1].at);
        timer[1].callback();
        await settle();
      }
      time = target;
      await settle();
    },
    async next() {
      await settle();
      const timer = due();
      if (!timer) return false;
      timers.delete(timer[0]);
      time = Math.max(time, timer[1].at);
      timer[1].callback();
      await settle();
      return true;
    },
    pending: () => timers.size,
  };
}
