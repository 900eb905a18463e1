// time_unit's pure judgement: an answer asked for in a unit against the two reads without the
// header around it (given the three answers, want the problems, or that the answer moved).
import { describe, expect, it } from "vitest";
import { judgeUnit, unitOf } from "../src/checks/time-unit.js";

const NOW = 1_700_000_000_000;
const HORIZON = NOW + 86_400_000;
const order = (time: number, updateTime: number, extra: Record<string, unknown> = {}) => ({
  orderId: 42,
  price: "1.00",
  time,
  updateTime,
  workingTime: time,
  ...extra,
});

describe("a read in microseconds between two in milliseconds", () => {
  const cases = [
    {
      name: "every time x1000: passes",
      given: {
        before: order(NOW, NOW + 5),
        asked: order(NOW * 1000, (NOW + 5) * 1000),
        after: order(NOW, NOW + 5),
      },
      want: [],
    },
    {
      name: "a sub-millisecond part: passes",
      given: {
        before: order(NOW, NOW),
        asked: order(NOW * 1000 + 999, NOW * 1000 + 1),
        after: order(NOW, NOW),
      },
      want: [],
    },
    {
      name: "a clock that moved between the reads: inside the interval passes",
      given: {
        before: { serverTime: NOW },
        asked: { serverTime: (NOW + 3) * 1000 + 7 },
        after: { serverTime: NOW + 9 },
      },
      want: [],
    },
    {
      name: "a clock outside the reads' interval",
      given: {
        before: { serverTime: NOW },
        asked: { serverTime: (NOW + 10) * 1000 },
        after: { serverTime: NOW + 9 },
      },
      want: ["/serverTime is"],
    },
    {
      name: "the header ignored (milliseconds)",
      given: { before: order(NOW, NOW), asked: order(NOW, NOW), after: order(NOW, NOW) },
      want: ["/time is", "/updateTime is", "/workingTime is"],
    },
    {
      name: "one field left in milliseconds",
      given: { before: order(NOW, NOW), asked: order(NOW * 1000, NOW), after: order(NOW, NOW) },
      want: ["/updateTime is"],
    },
    {
      name: "an id scaled too",
      given: {
        before: order(NOW, NOW),
        asked: order(NOW * 1000, NOW * 1000, { orderId: 42_000 }),
        after: order(NOW, NOW),
      },
      want: ["/orderId is 42000"],
    },
    {
      name: "a time not set (-1) stays negative",
      given: {
        before: order(NOW, NOW, { workingTime: -1 }),
        asked: order(NOW * 1000, NOW * 1000, { workingTime: -1 }),
        after: order(NOW, NOW, { workingTime: -1 }),
      },
      want: [],
    },
    {
      name: "a time not set made positive",
      given: {
        before: order(NOW, NOW, { workingTime: -1 }),
        asked: order(NOW * 1000, NOW * 1000, { workingTime: -1000 + 2_000_000 }),
        after: order(NOW, NOW, { workingTime: -1 }),
      },
      want: ["/workingTime is"],
    },
    {
      name: "a list: each element's times",
      given: {
        before: [
          { id: 1, time: NOW },
          { id: 2, time: NOW + 1 },
        ],
        asked: [
          { id: 1, time: NOW * 1000 },
          { id: 2, time: NOW * 1000 },
        ],
        after: [
          { id: 1, time: NOW },
          { id: 2, time: NOW + 1 },
        ],
      },
      want: ["/1/time is"],
    },
    {
      name: "a field only in the answer in microseconds",
      given: {
        before: { closeTime: NOW },
        asked: { closeTime: NOW * 1000, extra: 1 },
        after: { closeTime: NOW },
      },
      want: ["/extra is in the answer"],
    },
    {
      name: "the next read without the header got the answer in microseconds (kept by URL)",
      given: {
        before: { serverTime: NOW },
        asked: { serverTime: NOW * 1000 },
        after: { serverTime: NOW * 1000 },
      },
      want: ["without the header (read after), /serverTime is"],
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const judgement = judgeUnit(given, "MICROSECOND", HORIZON);
    expect(judgement.problems.length, judgement.problems.join("\n")).toBe(want.length);
    for (const [i, start] of want.entries()) expect(judgement.problems[i]).toContain(start);
  });

  it("an answer whose other fields moved between the reads is not judged but read again", () => {
    const judgement = judgeUnit(
      { before: [{ id: 1, time: NOW }], asked: [{ id: 9, time: 5 }], after: [{ id: 2, time: NOW }] },
      "MICROSECOND",
      HORIZON,
    );
    expect(judgement).toEqual({ moved: true, problems: [] });
  });
});

describe("a read in milliseconds, asked for", () => {
  const cases = [
    {
      name: "the same times: passes",
      given: { before: order(NOW, NOW), asked: order(NOW, NOW), after: order(NOW, NOW) },
      want: 0,
    },
    {
      name: "microseconds instead",
      given: { before: order(NOW, NOW), asked: order(NOW * 1000, NOW * 1000), after: order(NOW, NOW) },
      want: 3,
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(judgeUnit(given, "MILLISECOND", HORIZON).problems).toHaveLength(want);
  });
});

describe("the unit a value names", () => {
  it.each([
    { given: "MICROSECOND", want: "MICROSECOND" },
    { given: "microsecond", want: "MICROSECOND" },
    { given: "MILLISECOND", want: "MILLISECOND" },
    { given: "millisecond", want: "MILLISECOND" },
  ])("$given → $want", ({ given, want }) => {
    expect(unitOf(given)).toBe(want);
  });
});
