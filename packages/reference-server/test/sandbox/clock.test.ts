// The sandbox clock on a real clock the test moves by hand: rates, pause, advance, the hold a
// market puts on it, and that it never reads less than it read before.
import { describe, expect, it } from "vitest";
import { SandboxClock } from "../../src/sandbox/clock.js";

function clockAt(rate: number) {
  let real = 1_000;
  const clock = new SandboxClock({ start: 1_700_000_000_000, rate, real: () => real });
  return { clock, pass: (ms: number) => (real += ms) };
}

describe("the sandbox clock", () => {
  it.each([
    { rate: 1, pass: 1500, want: 1500 },
    { rate: 60, pass: 1000, want: 60_000 },
    { rate: 0.5, pass: 1000, want: 500 },
    { rate: 0, pass: 86_400_000, want: 0 },
  ])("at rate $rate, $pass real ms move it $want ms", ({ rate, pass, want }) => {
    const { clock, pass: elapse } = clockAt(rate);
    elapse(pass);
    expect(clock.now() - 1_700_000_000_000).toBe(want);
  });

  it("advances forward only, and runs on at its rate from there", () => {
    const { clock, pass } = clockAt(1);
    clock.advanceTo(1_700_000_060_000);
    expect(clock.now()).toBe(1_700_000_060_000);
    clock.advanceTo(1_700_000_000_500);
    expect(clock.now()).toBe(1_700_000_060_000);
    pass(250);
    expect(clock.now()).toBe(1_700_000_060_250);
  });

  it("a new rate applies from the present time, without a jump", () => {
    const { clock, pass } = clockAt(1);
    pass(1000);
    clock.setRate(0);
    const paused = clock.now();
    pass(5000);
    expect(clock.now()).toBe(paused);
    clock.setRate(10);
    pass(100);
    expect(clock.now()).toBe(paused + 1000);
  });

  it("a hold keeps it from running past the holder, then it runs on from there at its rate", () => {
    const { clock, pass } = clockAt(100);
    let limit = 1_700_000_001_000;
    clock.holdBy(() => limit);
    pass(1000); // 100 s at rate 100: held at the limit
    expect(clock.now()).toBe(limit);
    limit += 60_000; // the holder caught up: time goes on from where it stood, not from where it would be
    pass(10);
    expect(clock.now()).toBe(1_700_000_002_000);
    clock.holdBy(undefined);
    pass(10);
    expect(clock.now()).toBe(1_700_000_003_000);
  });

  it("never reads less than before, whatever the real clock does", () => {
    const { clock, pass } = clockAt(1);
    pass(500);
    const read = clock.now();
    pass(-400);
    expect(clock.now()).toBe(read);
  });

  it("rewinds only when told to (a restore)", () => {
    const { clock } = clockAt(1);
    clock.rewindTo(1_600_000_000_000);
    expect(clock.now()).toBe(1_600_000_000_000);
  });

  it.each([-1, Number.NaN, 100_001, Number.POSITIVE_INFINITY])("refuses the rate %s", (rate) => {
    expect(() => clockAt(rate)).toThrow(/rate must be a number from 0 to 100000/);
  });
});
