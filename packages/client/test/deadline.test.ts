// A send without an abort signal ends at its deadline through byDeadline, and the deadline keeps
// a send only while it is under way (a send it kept until the deadline would stay in memory for
// the whole timeout, thousands of them on a busy client).
import { describe, expect, it } from "vitest";
import { byDeadline, type Deadline } from "../src/runtime/call-conduct.js";

const deadline = (): Deadline => ({ waiting: new Set() });

describe("byDeadline", () => {
  it("gives the send's answer, and lets go of the send once it settled", async () => {
    const d = deadline();
    const answers = Array.from({ length: 100 }, (_, i) => byDeadline(Promise.resolve(i), d));
    expect(d.waiting.size).toBe(100);
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await expect(byDeadline(Promise.reject(new Error("dropped")), d)).rejects.toThrow("dropped");
    expect(d.waiting.size).toBe(0);
  });

  it("rejects with the deadline's reason when it comes first", async () => {
    const d = deadline();
    const hung = byDeadline(new Promise<never>(() => {}), d);
    for (const reject of d.waiting) reject(new DOMException("late", "TimeoutError"));
    await expect(hung).rejects.toThrow("late");
  });

  it("is the send itself without a deadline", () => {
    const sending = Promise.resolve(1);
    expect(byDeadline(sending, undefined)).toBe(sending);
  });
});
