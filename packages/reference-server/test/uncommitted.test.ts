// The bookkeeping of changes not committed yet: an entry stays until the batch carrying its newest
// values is committed, and nothing stays once every batch is.
import { describe, expect, it } from "vitest";
import type { Order } from "../src/engine/index.js";
import { Uncommitted } from "../src/store/uncommitted.js";
import { ordersChanged } from "./support/change-sets.js";

const order = (orderId: number, clientOrderId: string) =>
  ({ symbol: "X", orderId, accountId: "a", clientOrderId, status: "NEW" }) as unknown as Order;

describe("Uncommitted", () => {
  it("keeps an order changed again after its batch was sent until the later batch commits", () => {
    const uncommitted = new Uncommitted();
    const first = order(1, "c");
    uncommitted.add(ordersChanged([first]), 1);
    uncommitted.add(ordersChanged([first]), 2); // changed again while batch 1 commits
    uncommitted.settle(ordersChanged([first]), 1);
    expect(uncommitted.orders.get("X", 1)).toBe(first);
    expect(uncommitted.latestByClientOrderId("a", "X", "c")).toBe(first);
    uncommitted.settle(ordersChanged([first]), 2);
    expect(uncommitted.orders.get("X", 1)).toBeUndefined();
    expect(uncommitted.latestByClientOrderId("a", "X", "c")).toBeUndefined();
    expect(uncommitted.size).toBe(0);
  });

  it("holds the newest order of a client order id only: once it is committed, the database answers", () => {
    const uncommitted = new Uncommitted();
    const older = order(4, "c");
    const newer = order(9, "c");
    uncommitted.add(ordersChanged([older, newer]), 1);
    uncommitted.add(ordersChanged([older]), 2); // the older order changes again while batch 1 commits
    expect(uncommitted.latestByClientOrderId("a", "X", "c")).toBe(newer);
    uncommitted.settle(ordersChanged([older, newer]), 1);
    expect(uncommitted.orders.get("X", 4)).toBe(older);
    expect(uncommitted.latestByClientOrderId("a", "X", "c")).toBeUndefined();
    uncommitted.settle(ordersChanged([older]), 2);
    expect(uncommitted.size).toBe(0);
  });

  it("finds the newest order of a client order id, and forgets all on clear", () => {
    const uncommitted = new Uncommitted();
    uncommitted.add(ordersChanged([order(4, "c"), order(9, "c"), order(7, "d")]), 1);
    expect(uncommitted.latestByClientOrderId("a", "X", "c")?.orderId).toBe(9);
    expect(uncommitted.latestByClientOrderId("b", "X", "c")).toBeUndefined();
    uncommitted.clear();
    expect(uncommitted.size).toBe(0);
    expect(uncommitted.latestByClientOrderId("a", "X", "c")).toBeUndefined();
  });
});
