// Work on the order path against the size of the book: 10, 1,000 and 20,000 resting orders away
// from the touch, each at a price level of its own (half bids, half asks), as in the ceiling
// bench's flatness section (which times 100,000; counted, 20,000 already sets a linear walk, about
// 20,000 entries, a thousand-fold apart from a binary search's 15, at a fifth of the test's cost). Counted, never timed: each side's array of price levels (kept worst
// first, in BookSide's private `worstFirst`) is watched through a Proxy that counts the level
// entries read and written while an order is placed, crossed or the depth is read.
import { describe, expect, it } from "vitest";
import type { BookSide } from "../../src/engine/book.js";
import type { Exchange } from "../../src/engine/index.js";
import { bareExchange, limit } from "./support.js";

const SIZES = [10, 1_000, 20_000];
/** Entries a binary search reads over the largest book's levels on one side: log2(N/2) + 1. */
const SEARCH = Math.ceil(Math.log2((SIZES[2] as number) / 2)) + 1;
const BID = 59_000_00; // cents: the touch is 59,000.00 / 61,000.00
const ASK = 61_000_00;
const price = (cents: number) => (cents / 100).toFixed(2);

interface Counted {
  ex: Exchange;
  /** Level entries read and written since the last `take()`. */
  take(): number;
}

/** A book with `size` resting orders behind a touch of one bid and one ask, its levels counted. */
function bookOf(size: number): Counted {
  const { ex } = bareExchange();
  for (const id of ["touch", "buyer", "seller"]) ex.addAccount(id, { BTC: "1000", USDT: "100000000" });
  ex.newOrder("touch", limit("BUY", price(BID), "0.001"));
  ex.newOrder("touch", limit("SELL", price(ASK), "0.001"));
  let account = "";
  for (let i = 0; i < size; i += 1) {
    // 200 per account: the default cap of open orders per account.
    if (i % 200 === 0) {
      account = `resting-${i / 200}`;
      ex.addAccount(account, { BTC: "10", USDT: "1000000" });
    }
    const level = 100 + Math.floor(i / 2);
    const buy = i % 2 === 0;
    ex.newOrder(account, limit(buy ? "BUY" : "SELL", price(buy ? BID - level : ASK + level), "0.001"));
  }
  let touched = 0;
  const count = {
    get(target: object, key: string | symbol, receiver: unknown) {
      if (typeof key === "string" && /^\d+$/.test(key)) touched += 1;
      return Reflect.get(target, key, receiver);
    },
    set(target: object, key: string | symbol, value: unknown, receiver: unknown) {
      if (typeof key === "string" && /^\d+$/.test(key)) touched += 1;
      return Reflect.set(target, key, value, receiver);
    },
  };
  const book = ex.internalState().markets.get("BTCUSDT")?.book;
  for (const side of [book?.bids, book?.asks] as BookSide[]) {
    expect(side.size).toBe(1 + size / 2);
    const levels = (side as unknown as { worstFirst: object }).worstFirst;
    expect(Array.isArray(levels)).toBe(true);
    Object.defineProperty(side, "worstFirst", { value: new Proxy(levels, count) });
  }
  return {
    ex,
    take: () => {
      const n = touched;
      touched = 0;
      return n;
    },
  };
}

/** The count of `action` at each size (SIZES). */
function atEachSize(action: (book: Counted) => void): number[] {
  return SIZES.map((size) => {
    const book = bookOf(size);
    action(book); // once to settle what a first call does, then counted
    book.take();
    action(book);
    return book.take();
  });
}

describe("order path against the size of the book (level entries touched, counted)", () => {
  it("reads at most `limit` levels of each side for depth, whatever the book holds", () => {
    const counts = atEachSize(({ ex }) => ex.depth("BTCUSDT", 100));
    expect(counts[2]).toBeLessThanOrEqual(2 * 100 + 4);
    expect(counts[2]).toBe(counts[1]);
  });

  it("touches the same levels for an order that fills at the touch and leaves its level standing", () => {
    const counts = atEachSize(({ ex }) => {
      ex.newOrder("buyer", limit("BUY", price(BID), "0.001")); // joins the best bid's queue
      ex.newOrder("seller", limit("SELL", price(BID), "0.001")); // fills the touch's own order first
    });
    // A binary search over N/2 levels reads log2(N/2) + 1 entries: a handful more on the largest book.
    expect(counts[2] as number).toBeLessThanOrEqual((counts[0] as number) + 2 * SEARCH);
  });

  // A level that opens or closes at the touch (an order resting inside the spread, then filled)
  // is a push and a pop at the array's best end; with levels kept best first it shifted every
  // level behind it (37 / 2,029 / 200,043 entries at 10, 1,000 and 100,000).
  it("touches the same levels when an order opens and then closes a level at the touch", () => {
    const counts = atEachSize(({ ex }) => {
      ex.newOrder("buyer", limit("BUY", price((BID + ASK) / 2), "0.001")); // a new best bid
      ex.newOrder("seller", limit("SELL", price((BID + ASK) / 2), "0.001")); // fills it: level gone
    });
    expect(counts[2] as number).toBeLessThanOrEqual((counts[0] as number) + 4 * SEARCH);
  });
});
