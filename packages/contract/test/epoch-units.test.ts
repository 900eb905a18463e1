// epoch_units' pure judgements (given/want): the bounds it sends, what a window in microseconds
// must select, the timestamps it sends and whether each must be served. The rule is the spec's,
// read through the model (never a bound written here).
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import { judgeEpochWindow, microsecondBounds, timestampProbes } from "../src/checks/epoch-units.js";

const model = buildSpecModel(loadOpenApi());
const rule = model.epochTime!;

describe("the rule comes from the spec", () => {
  it("x-epoch-time and x-signing's lead", () => {
    expect(rule.parameters).toContain("timestamp");
    expect(model.signing?.aheadAllowedMs).toBe(1000);
  });
});

describe("timestampProbes", () => {
  it("now and half the window served; past the window and past the lead refused, with a margin", () => {
    expect(timestampProbes(5000, 1000).map(({ shiftMs, served }) => [shiftMs, served])).toEqual([
      [0, true],
      [-2500, true],
      [-7000, false],
      [3000, false],
    ]);
    expect(timestampProbes(5000, undefined)).toHaveLength(3);
  });
});

describe("microsecondBounds", () => {
  const cases: { name: string; given: number[]; want: { start: number; end: number } | undefined }[] = [
    {
      name: "just after the second item's millisecond, just before the newest's",
      given: [100, 200, 300, 400],
      want: { start: 200_001, end: 399_999 },
    },
    { name: "nothing strictly between", given: [100, 200, 200], want: undefined },
    { name: "too few items", given: [100], want: undefined },
  ];
  it.each(cases)("$name", ({ given, want }) => expect(microsecondBounds(given)).toEqual(want));
});

describe("judgeEpochWindow", () => {
  const items = [
    { key: "1", time: 1_704_067_200_000 },
    { key: "2", time: 1_704_067_200_001 },
    { key: "3", time: 1_704_067_200_001 },
    { key: "4", time: 1_704_067_200_002 },
    { key: "5", time: 1_704_067_200_003 },
  ];
  const bounds = microsecondBounds(items.map((item) => item.time))!;
  const cases: { name: string; answer: string[]; problems: number }[] = [
    { name: "exactly the items whose instants lie within", answer: ["4"], problems: 0 },
    { name: "the start rounded down to its millisecond", answer: ["2", "3", "4"], problems: 1 },
    { name: "the end rounded up", answer: ["4", "5"], problems: 1 },
    { name: "bounds read as milliseconds: nothing", answer: [], problems: 1 },
    { name: "both wrong", answer: ["5"], problems: 2 },
  ];
  it.each(cases)("$name", ({ answer, problems }) => {
    expect(judgeEpochWindow(rule, items, bounds, answer)).toHaveLength(problems);
  });
  it("a millisecond bound names the whole millisecond, inclusive", () => {
    expect(
      judgeEpochWindow(rule, items, { start: 1_704_067_200_001, end: 1_704_067_200_002 }, ["2", "3", "4"]),
    ).toEqual([]);
  });
});
