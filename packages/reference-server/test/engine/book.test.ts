// A book side against a plain reference (all its orders sorted by price, then arrival): levels
// best first, FIFO inside a level, after random inserts and removals on both sides.
import { describe, expect, test } from "vitest";
import { BookSide } from "../../src/engine/book.js";
import type { Order, Side } from "../../src/engine/types.js";

function order(id: number, price: bigint): Order {
  return { orderId: id, price } as Order;
}

/** A small deterministic generator (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe("BookSide keeps levels best first and orders in arrival order", () => {
  for (const side of ["BUY", "SELL"] as Side[]) {
    test(`${side}: random inserts and removals match the reference`, () => {
      const book = new BookSide(side);
      const random = lcg(side === "BUY" ? 7 : 11);
      const resting: Order[] = [];
      for (let id = 1; id <= 2000; id += 1) {
        if (resting.length > 0 && random() < 0.4) {
          const [gone] = resting.splice(Math.floor(random() * resting.length), 1) as [Order];
          book.remove(gone);
        } else {
          const placed = order(id, BigInt(100 + Math.floor(random() * 60)));
          resting.push(placed);
          book.insert(placed);
        }
      }
      const better = (a: bigint, b: bigint) => (side === "BUY" ? a > b : a < b);
      const prices = [...new Set(resting.map((o) => o.price))].sort((a, b) =>
        better(a, b) ? -1 : better(b, a) ? 1 : 0,
      );
      const want = prices.map((price) => [
        price,
        resting.filter((o) => o.price === price).map((o) => o.orderId),
      ]);
      const levels = book.bestLevels(Number.MAX_SAFE_INTEGER);
      expect(levels.map((l) => [l.price, l.orders.map((o) => o.orderId)])).toEqual(want);
      expect(book.size).toBe(prices.length);
      expect(book.best()?.price).toBe(prices[0]);
      for (let rank = 0; rank < book.size; rank += 1) expect(book.level(rank)).toBe(levels[rank]);
      expect(book.level(book.size)).toBeUndefined();
      expect(book.bestLevels(3).map((l) => l.price)).toEqual(prices.slice(0, 3));
      expect(book.bestLevels(0)).toEqual([]);
    });
  }
});
