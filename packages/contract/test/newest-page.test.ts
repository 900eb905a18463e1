// The newest page of an account's orders (kit/newest-page.ts), judged against the orders known to
// be the account's: given/want, as order_views judges a run's pages and recall a restarted one.
import { describe, expect, it } from "vitest";
import { judgeNewestPage, type NewestPage } from "../src/kit/newest-page.js";

const page = (ids: number[], limit = 1000): NewestPage => ({
  symbol: "BTCUSDT",
  limit,
  ids,
  direction: "ascending",
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the newest page of the account's orders", () => {
  const cases: Array<{ given: string; page: NewestPage; known: number[]; want: string[] }> = [
    { given: "every known order, oldest first", page: page([1, 2, 3]), known: [1, 2, 3], want: [] },
    {
      given: "orders from before the run beside the known ones",
      page: page([1, 2, 5, 7]),
      known: [5, 7],
      want: [],
    },
    { given: "a full small page of the newest", page: page([5, 6, 7], 3), known: [2, 4, 6, 7], want: [] },
    {
      given: "a full page whose newer orders are another client's",
      page: page([8, 9, 10], 3),
      known: [2, 4, 6, 7],
      want: [],
    },
    {
      given: "fewer orders than known",
      page: page([3]),
      known: [1, 2, 3],
      want: [
        "BTCUSDT all_orders (newest 1000): 1 order(s), but the account has the 3 known, so the newest page holds 3",
        "BTCUSDT all_orders (newest 1000): leaves out order(s) 1, 2 known, though it holds fewer than its limit (so every order of the account)",
      ],
    },
    {
      given: "a small page short by one",
      page: page([6, 7], 3),
      known: [2, 4, 6, 7],
      want: [
        "BTCUSDT all_orders (newest 3): 2 order(s), but the account has the 4 known, so the newest page holds 3",
        "BTCUSDT all_orders (newest 3): leaves out order(s) 2, 4 known, though it holds fewer than its limit (so every order of the account)",
      ],
    },
    {
      given: "the newest order dropped, an older one in its place",
      page: page([4, 5, 6], 3),
      known: [4, 6, 7],
      want: [
        "BTCUSDT all_orders (newest 3): leaves out order(s) 7 known, newer than its oldest (4): the newest page holds the newest orders",
      ],
    },
    {
      given: "the oldest page instead of the newest",
      page: page([1, 2, 3], 3),
      known: [1, 5, 9],
      want: [
        "BTCUSDT all_orders (newest 3): leaves out order(s) 5, 9 known, newer than its oldest (1): the newest page holds the newest orders",
      ],
    },
    {
      given: "newest first, though stated oldest first",
      page: page([3, 2, 1]),
      known: [1, 2, 3],
      want: [
        "BTCUSDT all_orders (newest 1000): orderId 2 follows 3: the list is stated ascending by orderId",
      ],
    },
    {
      given: "more than its limit",
      page: page([1, 2, 3, 4], 3),
      known: [4],
      want: ["BTCUSDT all_orders (newest 3): 4 order(s), more than its limit 3"],
    },
    {
      given: "more known than the limit, the page full",
      page: page(range(201, 1200)),
      known: range(1, 1200),
      want: [],
    },
  ];
  it.each(cases)("$given", ({ page, known, want }) => {
    expect(judgeNewestPage(page, known, "known").map((f) => `${f.subject}: ${f.message}`)).toEqual(want);
  });

  it("names no order twice, and shows at most five", () => {
    const [finding] = judgeNewestPage(page([]), [...range(1, 8), 3], "placed");
    expect(finding?.message).toBe("0 order(s), but the account has the 8 placed, so the newest page holds 8");
    expect(judgeNewestPage(page([]), range(1, 8), "placed")[1]?.message).toMatch(
      /leaves out order\(s\) 1, 2, 3, 4, 5 and 3 more placed/,
    );
  });
});
