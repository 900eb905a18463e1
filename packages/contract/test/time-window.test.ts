// time_window's RFC 3339 bounds with an offset (withOffset): the same instant, written in a zone
// east or west of UTC, to the millisecond; and the items a window may be judged on (closedTimes).
import { describe, expect, it } from "vitest";
import { closedTimes, withOffset } from "../src/checks/time-window.js";

describe("withOffset", () => {
  it.each([
    { given: { t: 1764547200123, minutes: 330 }, want: "2025-12-01T05:30:00.123+05:30" },
    { given: { t: 1764547200123, minutes: -210 }, want: "2025-11-30T20:30:00.123-03:30" },
    { given: { t: 1764547200000, minutes: 0 }, want: "2025-12-01T00:00:00.000+00:00" },
  ])("$want", ({ given, want }) => {
    const text = withOffset(given.t, given.minutes);
    expect(text).toBe(want);
    expect(Date.parse(text)).toBe(given.t);
  });
});

describe("closedTimes: the newest millisecond may gain items and the oldest may have more before the page, so windows keep inside them", () => {
  it.each([
    { name: "the newest and the oldest time left out", given: [1, 2, 3, 3], want: [2] },
    { name: "one item at each end", given: [5, 6, 7, 8], want: [6, 7] },
    { name: "several items at the oldest time", given: [5, 5, 5, 6, 7, 8], want: [6, 7] },
    { name: "every item at one time", given: [4, 4, 4], want: [] },
    { name: "two times only", given: [4, 4, 5], want: [] },
    { name: "none", given: [], want: [] },
  ])("$name", ({ given, want }) => {
    expect(closedTimes(given)).toEqual(want);
  });
});
