// book_orders' judgement of the book around the run's own orders (bookProblems), given the book
// before and after a change of the run's: which levels it judges, and what it says.
import { describe, expect, it } from "vitest";
import {
  bookProblems,
  emptyBidPrice,
  excessStayed,
  marketExplains,
  type Shown,
  sameVersionProblems,
  untriggeredStopProblems,
  type VersionedBook,
  versionOrderProblems,
} from "../src/checks/book-orders.js";
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

describe("one lastUpdateId, one book: every order_book answer of the run", () => {
  let n = 0;
  const answer = (
    lastUpdateId: number,
    bids: [string, string][],
    asks: [string, string][] = [["101", "1"]],
    extra: Partial<VersionedBook> = {},
  ): VersionedBook => {
    n += 1;
    return {
      n,
      label: `read ${n}`,
      symbol: "BTCUSDT",
      ...book(lastUpdateId, bids, asks),
      sentAt: n * 10,
      answeredAt: n * 10 + 5,
      ...extra,
    };
  };
  const cases = [
    {
      name: "the same id, the same book",
      given: () => [answer(7, [["100", "1"]]), answer(7, [["100", "1"]])],
      want: [],
    },
    {
      // The faulty server moved the id only when a level came or went.
      name: "the same id, a quantity changed",
      given: () => [answer(7, [["100", "1"]]), answer(7, [["100", "1.5"]])],
      want: ["bid level 1: 100 × 1 against 100 × 1.5"],
    },
    {
      name: "the same id, an ask level of another price",
      given: () => [answer(7, [["100", "1"]], [["101", "1"]]), answer(7, [["100", "1"]], [["102", "1"]])],
      want: ["ask level 1: 101 × 1 against 102 × 1"],
    },
    {
      name: "a read of 5 levels and one of more agree on the 5 both show",
      given: () => [
        answer(7, [
          ["100", "1"],
          ["99", "2"],
        ]),
        answer(7, [["100", "1"]]),
      ],
      want: [],
    },
    {
      name: "a short read compared with the longest before it, past what the first showed",
      given: () => [
        answer(7, [["100", "1"]]),
        answer(7, [
          ["100", "1"],
          ["99", "2"],
        ]),
        answer(7, [
          ["100", "1"],
          ["99", "3"],
        ]),
      ],
      want: ["bid level 2: 99 × 2 against 99 × 3"],
    },
    {
      name: "different ids may show different books",
      given: () => [answer(7, [["100", "1"]]), answer(8, [["100", "1.5"]])],
      want: [],
    },
    {
      name: "the same id on two symbols",
      given: () => [answer(7, [["100", "1"]]), answer(7, [["200", "1"]], [], { symbol: "ETHUSDT" })],
      want: [],
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const found = sameVersionProblems(given());
    expect(found.map((f) => /differ at the (.*); the id/.exec(f.problem)?.[1])).toEqual(want);
    // Both answers named, and the symbol.
    for (const f of found)
      expect(f.problem).toMatch(new RegExp(`^BTCUSDT: #${f.earlier.n} .* and #${f.later.n} `));
  });
});

describe("a later answer never carries a smaller lastUpdateId", () => {
  const at = (n: number, lastUpdateId: number, sentAt: number, answeredAt: number, symbol = "BTCUSDT") => ({
    n,
    label: `read ${n}`,
    symbol,
    lastUpdateId,
    bids: [],
    asks: [],
    sentAt,
    answeredAt,
  });
  const cases = [
    { name: "ids that grow", given: [at(1, 5, 0, 10), at(2, 6, 20, 30)], want: [] },
    { name: "the same id again", given: [at(1, 5, 0, 10), at(2, 5, 20, 30)], want: [] },
    { name: "an id that went back", given: [at(1, 5, 0, 10), at(2, 4, 20, 30)], want: [[1, 2]] },
    {
      name: "the highest id answered before is the one compared",
      given: [at(1, 9, 0, 10), at(2, 6, 20, 30), at(3, 7, 40, 50)],
      want: [
        [1, 2],
        [1, 3],
      ],
    },
    {
      name: "answers in flight together are not ordered",
      given: [at(1, 5, 0, 30), at(2, 4, 10, 20)],
      want: [],
    },
    {
      name: "sent in the very millisecond the other was answered: not ordered",
      given: [at(1, 5, 0, 10), at(2, 4, 10, 20)],
      want: [],
    },
    { name: "another symbol's ids", given: [at(1, 5, 0, 10), at(2, 4, 20, 30, "ETHUSDT")], want: [] },
  ];
  it.each(cases)("$name", ({ given, want }) =>
    expect(versionOrderProblems(given).map((f) => [f.earlier.n, f.later.n])).toEqual(want),
  );
});

describe("an untriggered stop-limit order is not in the book", () => {
  const stop = {
    ...buy("90", "0.5"),
    type: "TAKE_PROFIT_LIMIT",
    stopPrice: parseDec("90"),
  };
  const cases = [
    {
      name: "the book does not show it",
      given: { before: book(1, [["100", "1"]]), after: book(2, [["100", "1"]]) },
      want: { judged: true, problems: 0 },
    },
    {
      name: "a level of its own at its limit price",
      given: {
        before: book(1, [["100", "1"]]),
        after: book(2, [
          ["100", "1"],
          ["90", "0.5"],
        ]),
      },
      want: { judged: true, problems: 1 },
    },
    {
      name: "its quantity added to others' level at its limit price",
      given: {
        before: book(1, [["90", "2"]]),
        after: book(2, [["90", "2.5"]]),
      },
      want: { judged: true, problems: 1 },
    },
    {
      // Another client's order came to that price meanwhile: not the stop's quantity.
      name: "the level grew by another quantity than the stop's",
      given: { before: book(1, [["100", "1"]]), after: book(2, [["90", "0.7"]]) },
      want: { judged: true, problems: 0 },
    },
    {
      name: "a read full of levels above its price does not reach it",
      given: {
        before: book(1, [
          ["100", "1"],
          ["99", "1"],
        ]),
        after: book(2, [
          ["100", "1"],
          ["99", "1"],
        ]),
        depth: 2,
      },
      want: { judged: false, problems: 0 },
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const result = untriggeredStopProblems(
      given.before,
      given.after,
      stop,
      (given as { depth?: number }).depth ?? 100,
    );
    expect({ judged: result.judged, problems: result.problems.length }).toEqual(want);
  });

  const prices = [
    { name: "no level at the far price", given: { bids: [["100", "1"]], depth: 100 }, want: "90" },
    {
      name: "a level at the far price: the next tick up",
      given: {
        bids: [
          ["100", "1"],
          ["90", "1"],
        ],
        depth: 100,
      },
      want: "90.1",
    },
    {
      // A deep book: the far price lies past the read, so the deepest gap the read shows.
      name: "a full read whose last level is above the far price: a tick above its deepest gap",
      given: {
        bids: [
          ["100", "1"],
          ["99.5", "1"],
          ["99.4", "1"],
        ],
        depth: 3,
      },
      want: "99.6",
    },
    {
      name: "a full read with no gap between its levels: none",
      given: {
        bids: [
          ["100", "1"],
          ["99.9", "1"],
        ],
        depth: 2,
      },
      want: undefined,
    },
  ];
  it.each(prices)("the stop's price: $name", ({ given, want }) => {
    const levels = given.bids.map(([p, q]) => level(p as string, q as string));
    const price = emptyBidPrice(levels, parseDec("90"), parseDec("0.1"), given.depth);
    expect(price).toEqual(want === undefined ? undefined : parseDec(want));
  });
});
