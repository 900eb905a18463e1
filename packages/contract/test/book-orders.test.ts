// book_orders' judgement of the book around the run's own orders (bookProblems), given the book
// before and after a change of the run's: which levels it judges, and what it says.
import { describe, expect, it } from "vitest";
import { bookProblems, excessStayed, marketExplains, type Shown } from "../src/checks/book-orders.js";
import { parseDec } from "../src/core/decimal.js";

const level = (price: string, qty: string) => ({ price: parseDec(price), qty: parseDec(qty) });
const book = (lastUpdateId: number, bids: [string, string][], asks: [string, string][] = [["101", "1"]]) => ({
  lastUpdateId,
  bids: bids.map(([p, q]) => level(p, q)),
  asks: asks.map(([p, q]) => level(p, q)),
});
const buy = (price: string, visible: string): Shown => ({
  side: "BUY",
  price: parseDec(price),
  visible: parseDec(visible),
});

describe("the book around the run's orders", () => {
  const cases = [
    {
      name: "the run's BUY shown at its own level",
      given: {
        before: book(1, [["99", "2"]]),
        after: book(2, [
          ["100", "0.5"],
          ["99", "2"],
        ]),
        add: [buy("100", "0.5")],
      },
      want: { problems: 0, judged: true, shared: 0 },
    },
    {
      name: "the run's BUY missing from its own level",
      given: { before: book(1, [["99", "2"]]), after: book(2, [["99", "2"]]), add: [buy("100", "0.5")] },
      want: { problems: 1, judged: true, shared: 0 },
    },
    {
      name: "lastUpdateId that did not move",
      given: {
        before: book(1, [["99", "2"]]),
        after: book(1, [
          ["100", "0.5"],
          ["99", "2"],
        ]),
        add: [buy("100", "0.5")],
      },
      want: { problems: 1, judged: true, shared: 0 },
    },
    {
      name: "the rest of the side changed: levels not judged",
      given: { before: book(1, [["99", "2"]]), after: book(2, [["99", "3"]]), add: [buy("100", "0.5")] },
      want: { problems: 0, judged: false, shared: 0 },
    },
    {
      // Another account's 0.3 at the run's level went between the reads (filled or cancelled).
      name: "a level others' orders shared, changed beyond the run's part: not judged",
      given: {
        before: book(1, [
          ["100", "0.8"],
          ["99", "2"],
        ]),
        after: book(2, [["99", "2"]]),
        remove: [buy("100", "0.5")],
      },
      want: { problems: 0, judged: true, shared: 1 },
    },
    {
      name: "a level only the run's order held, left behind after it was taken away",
      given: {
        before: book(1, [
          ["100", "0.5"],
          ["99", "2"],
        ]),
        after: book(2, [
          ["100", "0.5"],
          ["99", "2"],
        ]),
        remove: [buy("100", "0.5")],
      },
      want: { problems: 1, judged: true, shared: 0 },
    },
    {
      // Another account sold 0.3 into the run's BUY before the read (busy-market seeds 20 and 80).
      name: "the run's BUY partly filled by others before the read: its level not judged",
      given: {
        before: book(1, [["99", "2"]]),
        after: book(2, [
          ["100", "0.2"],
          ["99", "2"],
        ]),
        add: [buy("100", "0.5")],
        traded: ["100"],
      },
      want: { problems: 0, judged: true, shared: 0, traded: 1 },
    },
    {
      name: "a trade of the run's at another level leaves this one judged",
      given: {
        before: book(1, [["99", "2"]]),
        after: book(2, [["99", "2"]]),
        add: [buy("100", "0.5")],
        traded: ["98"],
      },
      want: { problems: 1, judged: true, shared: 0, traded: 0 },
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const traded = (given as { traded?: string[] }).traded?.map(parseDec);
    const result = bookProblems(given.before, given.after, { add: given.add, remove: given.remove }, traded);
    expect({
      problems: result.problems.length,
      judged: result.judged,
      shared: result.shared.length,
      traded: result.leftOut.length,
    }).toEqual({ traded: 0, ...want });
  });
});

describe("whether the market explains levels that disagreed in every round", () => {
  const placed = "after a LIMIT BUY was placed inside the spread";
  const filled = "after the run's BUY was filled";
  const round = (...reads: [string, string[]][]) =>
    reads.map(([when, off]) => ({ when, off: off.map(parseDec) }));
  const cases = [
    {
      // busy-market seed 96: another account's bids joined the run's level, by other amounts
      name: "others' orders at the run's level, a different excess each round",
      given: [round([placed, ["0.00013"]]), round([placed, ["0.00005"]]), round([placed, ["0.00013"]])],
      want: true,
    },
    {
      name: "the disagreement moves from one read to another",
      given: [round([placed, ["0.0001"]], [filled, []]), round([placed, []], [filled, ["0.0001"]])],
      want: true,
    },
    {
      name: "a resting order missing from the book: the same shortfall every round (a fault)",
      given: [round([placed, ["-0.0001"]]), round([placed, ["-0.0001"]]), round([placed, ["-0.0001"]])],
      want: false,
    },
    {
      name: "an iceberg's whole quantity shown: the same excess every round (a fault)",
      given: [
        round([placed, ["0.0001"]], [filled, ["-0.0001"]]),
        round([placed, ["0.0001"]], [filled, ["-0.0001"]]),
      ],
      want: false,
    },
    { name: "one round only: nothing to compare", given: [round([placed, ["0.0003"]])], want: false },
  ];
  it.each(cases)("$name", ({ given, want }) => expect(marketExplains(given)).toBe(want));
});

describe("whether an excess at the run's level stayed after the run's order left it", () => {
  const taken = (bids: [string, string][]) => ({
    after: book(3, bids),
    change: { remove: [buy("100", "0.0001")] },
  });
  const cases = [
    {
      // busy-market seed 198: another account's 0.00013 joined the run's 0.0001 at 100
      name: "others' bid joined the level and stayed",
      given: { off: "0.00013", later: [taken([["100", "0.00013"]])] },
      want: true,
    },
    {
      name: "the excess left with the run's order (a target adding to the run's own order)",
      given: { off: "0.0001", later: [taken([["99", "2"]])] },
      want: false,
    },
    { name: "no later read took the run's order away", given: { off: "0.00013", later: [] }, want: false },
    {
      name: "a shortfall is never others' doing",
      given: { off: "-0.0001", later: [taken([["100", "0.00013"]])] },
      want: false,
    },
  ];
  it.each(cases)("$name", ({ given, want }) =>
    expect(excessStayed(parseDec("100"), "BUY", parseDec(given.off), given.later)).toBe(want),
  );
});
