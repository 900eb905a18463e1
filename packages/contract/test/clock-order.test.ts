// clock_sanity's end judgement (kit/clock.ts clockOrderProblems), given/want: server_time read
// around the orders the server stamped, by the order in which this machine sent and heard them.
import { describe, expect, it } from "vitest";
import { clockOrderProblems, type ServerTimeRead, type StampedEvent } from "../src/kit/clock.js";

const read = (sentAt: number, answeredAt: number, serverTime: number, clock = 0): ServerTimeRead => ({
  sentAt,
  answeredAt,
  serverTime,
  clock,
});
const order = (sentAt: number, answeredAt: number, time: number, clock = 0): StampedEvent => ({
  sentAt,
  answeredAt,
  time,
  clock,
  what: `order at ${time}`,
});

describe("clockOrderProblems: server_time against the times the server stamped", () => {
  const cases: Array<{ name: string; reads: ServerTimeRead[]; events: StampedEvent[]; want: RegExp[] }> = [
    {
      name: "before and after, in order",
      reads: [read(0, 2, 1001), read(20, 22, 1021)],
      events: [order(5, 8, 1010)],
      want: [],
    },
    {
      name: "a read after the order, cut to the second",
      reads: [read(20, 22, 1000)],
      events: [order(5, 8, 1010)],
      want: [/serverTime 1000, read after order at 1010 was answered, is earlier than its time 1010/],
    },
    {
      name: "a read before the order, ahead of it",
      reads: [read(0, 2, 1500)],
      events: [order(5, 8, 1010)],
      want: [/serverTime 1500, read before order at 1010 was sent, is later than its time 1010/],
    },
    // In flight at once: nothing tells which the server handled first.
    {
      name: "overlapping in flight",
      reads: [read(4, 9, 900), read(7, 12, 1200)],
      events: [order(5, 8, 1010)],
      want: [],
    },
    // A sandbox clock moved between them: another epoch, not compared.
    { name: "another clock epoch", reads: [read(20, 22, 1000, 1)], events: [order(5, 8, 1010, 0)], want: [] },
    {
      name: "equal times",
      reads: [read(0, 2, 1010), read(20, 22, 1010)],
      events: [order(5, 8, 1010)],
      want: [],
    },
    {
      name: "many events out of order: the first three, and how many more",
      reads: [read(100, 102, 0)],
      events: [1, 2, 3, 4, 5].map((i) => order(i, i + 1, 10 * i)),
      want: [/order at 10/, /order at 20/, /order at 30/, /^2 more event\(s\) so$/],
    },
  ];
  it.each(cases)("$name", ({ reads, events, want }) => {
    const problems = clockOrderProblems(reads, events);
    expect(problems).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
  });
});
