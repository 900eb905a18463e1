// What a browser test was waiting for when it stopped. The suite's only clock is the hang limit
// (vitest.shared.ts), so a page that never shows what a test waits for fails as "Test timed out"
// and no more. Each wait of the browser helpers goes through `waitingFor`; after a test, the
// waits still pending (and the last ones that ended) are what names the hang.
import { expect } from "vitest";

interface Wait {
  what: string;
  since: string;
}

const pending = new Map<number, Wait>();
/** The last waits that ended, newest last: where a hang between two named waits happened. */
const ended: string[] = [];
const ENDED_KEPT = 3;
let nextId = 0;

function clockTime(): string {
  return new Date().toISOString().slice(11, 19);
}

/** Runs `work`, recording it as waiting for `what` until it settles. */
export async function waitingFor<T>(what: string, work: () => Promise<T>): Promise<T> {
  const id = nextId++;
  pending.set(id, { what, since: clockTime() });
  try {
    return await work();
  } finally {
    pending.delete(id);
    ended.push(what);
    if (ended.length > ENDED_KEPT) ended.shift();
  }
}

export interface UnfinishedWaits {
  /** Each wait not settled, with the time it began: empty after a test that ended. */
  pending: string[];
  /** The waits that ended last, oldest first. */
  endedLast: string[];
}

/** The waits not settled, and clears the record for the next test. */
export function takeUnfinishedWaits(): UnfinishedWaits {
  const found = {
    pending: [...pending.values()].map((wait) => `${wait.what} (waiting since ${wait.since} UTC)`),
    endedLast: [...ended],
  };
  pending.clear();
  ended.length = 0;
  return found;
}

/**
 * expect.poll, recorded as a wait for `what` (which is also the message if it never matches):
 * `await until("the page to reach changes.html", () => page.url()).toBe(url)`.
 */
export function until<T>(what: string, value: () => T | Promise<T>) {
  const poll = () => expect.poll(value, { message: what });
  return {
    toBe: (want: T) => waitingFor(what, () => poll().toBe(want)),
    toContain: (want: unknown) => waitingFor(what, () => poll().toContain(want)),
  };
}
