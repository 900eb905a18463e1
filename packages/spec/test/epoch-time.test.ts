// x-epoch-time: the spec states the units of its time parameters once; the model reads it, refuses
// a malformed one naming the pointer, and tells a value's unit and a window's items (given/want).
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../dist/index.js";
import {
  buildSpecModel,
  epochMicroseconds,
  epochUnitOf,
  insideEpochWindow,
  readEpochTime,
  SpecModelError,
} from "../src/model/index.js";

const document = loadOpenApi();
const rule = buildSpecModel(document).epochTime!;

describe("the spec's x-epoch-time", () => {
  it("covers timestamp, startTime and endTime, in both units, from 10^14, filled from the live API", () => {
    expect(rule).toMatchObject({
      parameters: ["timestamp", "startTime", "endTime"],
      units: ["millisecond", "microsecond"],
      microsecondsFrom: 1e14,
      boundStatedBy: "this-document",
      timestamp: "same-instant",
      windowBounds: "instant",
      filledFrom: "live-api",
    });
  });

  it("every operation with a startTime or endTime lists it", () => {
    const names = buildSpecModel(document).operations.flatMap((operation) =>
      operation.parameters.map((parameter) => parameter.name),
    );
    for (const name of ["startTime", "endTime"]) {
      expect(names).toContain(name);
      expect(rule.parameters).toContain(name);
    }
  });
});

describe("readEpochTime refuses a malformed value, naming where", () => {
  const good = {
    filledFrom: "live-api",
    parameters: ["timestamp"],
    units: ["millisecond", "microsecond"],
    microsecondsFrom: 100_000_000_000_000,
    boundStatedBy: "this-document",
    boundWhy: "why",
    timestamp: "same-instant",
    windowBounds: "instant",
  };
  const cases: { name: string; given: unknown; where: string }[] = [
    { name: "not an object", given: 3, where: "/x-epoch-time" },
    { name: "an unknown unit", given: { ...good, units: ["nanosecond"] }, where: "/x-epoch-time/units/0" },
    {
      name: "a bound of 0",
      given: { ...good, microsecondsFrom: 0 },
      where: "/x-epoch-time/microsecondsFrom",
    },
    {
      name: "another judgement",
      given: { ...good, windowBounds: "floor" },
      where: "/x-epoch-time/windowBounds",
    },
    { name: "no reason for the bound", given: { ...good, boundWhy: "" }, where: "/x-epoch-time/boundWhy" },
  ];
  it.each(cases)("$name", ({ given, where }) => {
    expect(() => readEpochTime(given)).toThrow(SpecModelError);
    expect(() => readEpochTime(given)).toThrow(where);
  });
  it("absent: undefined", () => expect(readEpochTime(undefined)).toBeUndefined());
});

describe("a value's unit and instant (given/want)", () => {
  const cases: { given: number; unit: string; micros: number }[] = [
    { given: 1_704_067_200_000, unit: "millisecond", micros: 1_704_067_200_000_000 },
    { given: 99_999_999_999_999, unit: "millisecond", micros: 99_999_999_999_999_000 },
    { given: 100_000_000_000_000, unit: "microsecond", micros: 100_000_000_000_000 },
    { given: 1_704_067_200_000_500, unit: "microsecond", micros: 1_704_067_200_000_500 },
  ];
  it.each(cases)("$given → $unit", ({ given, unit, micros }) => {
    expect(epochUnitOf(rule, given)).toBe(unit);
    expect(epochMicroseconds(rule, given)).toBe(micros);
  });
  it("milliseconds only without microsecond among the units", () => {
    expect(epochUnitOf({ ...rule, units: ["millisecond"] }, 1_704_067_200_000_500)).toBe("millisecond");
  });
});

describe("insideEpochWindow: an item at millisecond T is inside when start <= T x 1000 <= end", () => {
  const T = 1_704_067_200_001;
  const cases: { name: string; start?: number; end?: number; want: boolean }[] = [
    { name: "bounds in ms, inclusive", start: T, end: T, want: true },
    { name: "a start in µs at T's instant", start: T * 1000, want: true },
    { name: "a start 1 µs after T's instant", start: T * 1000 + 1, want: false },
    { name: "an end 1 µs before T's instant", end: T * 1000 - 1, want: false },
    { name: "an end inside T's millisecond", end: T * 1000 + 999, want: true },
    { name: "mixed units", start: T - 1, end: T * 1000, want: true },
    { name: "no bounds", want: true },
  ];
  it.each(cases)("$name", ({ start, end, want }) =>
    expect(insideEpochWindow(rule, T, start, end)).toBe(want),
  );
});
