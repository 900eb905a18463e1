// The target's time as the tester uses it for every timestamp and window it sends: whole
// milliseconds, whatever the clock offset (a midpoint between two readings may end in a half,
// and a window of `now - 1 h` then went out as `startTime=1795846342210.5`, refused as -1100).
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { CHECK_NAMES } from "../src/checks/index.js";
import { buildContractModel } from "../src/core/operations.js";
import { Session } from "../src/session/session.js";
import { Recorder } from "../src/session/verdicts.js";

const model = buildContractModel(loadOpenApi());

function session(): Session {
  return new Session({
    model,
    baseUrl: "http://127.0.0.1:9",
    headers: {},
    timeoutMs: 600_000, // no request is made: the session only reads its clock
    maxRequests: 1,
    recorder: new Recorder(
      CHECK_NAMES,
      model.operations.map((op) => op.operationId),
    ),
  });
}

describe("Session.now", () => {
  const table: { given: number }[] = [{ given: 0 }, { given: 0.5 }, { given: -1234.5 }, { given: 7.25 }];
  it.each(table)("with a clock offset of $given ms, is a whole number of ms", ({ given }) => {
    const target = session();
    target.clockOffsetMs = given;
    expect(Number.isInteger(target.now())).toBe(true);
  });
});

describe("Session.adoptClock", () => {
  const stamped = (target: Session, at: number) =>
    target.timeline.push({
      exchange: {} as never,
      sentAt: at,
      answeredAt: at + 10,
      clock: target.clockEpoch,
    });

  it("stamps again, by the target's clock, what was sent before the clock was read", () => {
    const target = session();
    stamped(target, 1_000);
    target.adoptClock(58_000);
    stamped(target, 60_000);
    expect(target.timeline.map((e) => [e.sentAt, e.answeredAt, e.clock])).toEqual([
      [59_000, 59_010, 0],
      [60_000, 60_010, 0],
    ]);
  });

  const table: { given: number[]; want: number }[] = [
    { given: [250], want: 0 },
    { given: [250, 250], want: 0 },
    { given: [250, -30_000], want: 1 },
    { given: [250, -30_000, 4], want: 2 },
  ];
  it.each(table)("read as $given ms: clock epoch $want", ({ given, want }) => {
    const target = session();
    for (const offset of given) target.adoptClock(offset);
    expect(target.clockEpoch).toBe(want);
    expect(target.clockOffsetMs).toBe(given.at(-1));
  });

  it("leaves what was stamped after the first reading as it was", () => {
    const target = session();
    target.adoptClock(100);
    stamped(target, 5_000);
    target.adoptClock(-9_000);
    stamped(target, 6_000);
    expect(target.timeline.map((e) => [e.sentAt, e.clock])).toEqual([
      [5_000, 0],
      [6_000, 1],
    ]);
  });
});
