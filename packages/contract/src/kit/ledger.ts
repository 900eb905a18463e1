/**
 * Every order the run creates, or might have created, is written here before its request is
 * sent, under a client order id of its own. Clean-up cancels whatever is not known to be closed,
 * at the end of the run, after a failure, and on Ctrl-C.
 */
import { randomBytes } from "node:crypto";
import { OrdersHeld } from "../core/errors.js";
import type { Credentials } from "../http/request.js";
import type { RoundTrip } from "../session/round-trip.js";
import { bodyObject, ok } from "./answers.js";
import { ORDER_OPERATIONS } from "./order-operations.js";

export interface LedgerEntry {
  symbol: string;
  clientOrderId: string;
  orderId?: number;
  state: "sent" | "open" | "closed";
  /** What placed it ("order lifecycle", "history", "order arithmetic"…), for the report. */
  purpose: string;
  /** The account it was placed as, when not the run's own (a second account). */
  as?: Credentials;
}

/**
 * An entry's key: client order ids are unique among one account's orders ("among the account's
 * open orders", new_order), so another account may use the same id, and its entry must not
 * replace the run's.
 */
function keyOf(clientOrderId: string, as?: Credentials): string {
  return as ? `${as.apiKey}\n${clientOrderId}` : clientOrderId;
}

export class OrderLedger {
  readonly runId: string;
  private counter = 0;
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly placed = new Set<string>();

  constructor(runId: string = randomBytes(4).toString("hex")) {
    this.runId = runId;
  }

  /** A fresh client order id of this run (fits ^[a-zA-Z0-9-_]{1,36}$). */
  nextClientOrderId(): string {
    this.counter += 1;
    return `mct-${this.runId}-${this.counter}`;
  }

  /**
   * Called before an order-creating request is sent. Until the target has shown that it can query
   * and cancel an order of the run, no order is placed while one of the run's may still be open
   * (OrdersHeld): an exchange that answers neither would be left with orders nobody can find or
   * cancel. A refused order does not hold the next; an accepted one does, even when it closed at
   * once: the rule counts orders placed. The placer proves the two operations on the run's first
   * resting order when nothing else has (order-placing.ts).
   */
  sent(symbol: string, clientOrderId: string, purpose = "order lifecycle", as?: Credentials): void {
    const held = this.held();
    if (held) throw new OrdersHeld(held);
    this.entries.set(keyOf(clientOrderId, as), {
      symbol,
      clientOrderId,
      state: "sent",
      purpose,
      ...(as ? { as } : {}),
    });
  }

  /** `as`: the account the order was placed as, when not the run's own. */
  opened(clientOrderId: string, orderId: number | undefined, as?: Credentials): void {
    const key = keyOf(clientOrderId, as);
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.state = "open";
    this.placed.add(key);
    if (orderId !== undefined) entry.orderId = orderId;
  }

  /** An order the server created although it should not have (its id comes from the answer). */
  adopt(
    symbol: string,
    clientOrderId: string,
    orderId: number | undefined,
    purpose = "order lifecycle",
  ): void {
    this.entries.set(clientOrderId, {
      symbol,
      clientOrderId,
      state: "open",
      purpose,
      ...(orderId !== undefined ? { orderId } : {}),
    });
    this.placed.add(clientOrderId);
  }

  /**
   * An order sent without a client order id, recorded under `placeholder`: the target's answer
   * named the id it generated, under which the clean-up finds it from now on.
   */
  renamed(placeholder: string, generated: string, orderId: number | undefined): void {
    const entry = this.entries.get(placeholder);
    if (!entry) return;
    this.entries.delete(placeholder);
    this.placed.delete(placeholder);
    this.entries.set(keyOf(generated, entry.as), { ...entry, clientOrderId: generated });
    this.opened(generated, orderId, entry.as);
  }

  /** The run's order answered by query_order, and one cancelled by cancel_order (2xx each). */
  private queried = false;
  private cancelled = false;

  /**
   * Sees every answer of the run: an accepted order of its own counts as placed, whatever path
   * sent it; a query or a cancel of one of its orders that succeeded proves those operations.
   */
  observe(exchange: RoundTrip): void {
    if (!ok(exchange)) return;
    const body = bodyObject(exchange);
    const id = exchange.op.operationId;
    if (id === ORDER_OPERATIONS.newOrder && exchange.plan.as === undefined) {
      this.acceptedOwn += 1;
      if (typeof body?.symbol === "string" && Number.isInteger(body.orderId)) {
        const ids = this.accepted.get(body.symbol) ?? new Set<number>();
        ids.add(body.orderId as number);
        this.accepted.set(body.symbol, ids);
      }
    }
    if (id === ORDER_OPERATIONS.newOrder && typeof body?.clientOrderId === "string") {
      const key = keyOf(body.clientOrderId, exchange.plan.as);
      if (this.entries.has(key)) this.placed.add(key);
    }
    const as = exchange.plan.as;
    if (id === ORDER_OPERATIONS.queryOrder && this.owns(body?.clientOrderId, as)) this.queried = true;
    if (
      id === ORDER_OPERATIONS.cancelOrder &&
      (this.owns(body?.origClientOrderId, as) || this.owns(body?.clientOrderId, as))
    )
      this.cancelled = true;
  }

  /** Whether the target has shown it can query and cancel an order of the run. */
  get proven(): boolean {
    return this.queried && this.cancelled;
  }

  /** Why no further order may be placed, or undefined when one may. */
  held(): string | undefined {
    if (this.proven) return undefined;
    const inPlay = [...this.entries.values()].filter(
      (e) => e.state === "sent" || this.placed.has(keyOf(e.clientOrderId, e.as)),
    );
    if (inPlay.length === 0) return undefined;
    const missing = [!this.queried && "query", !this.cancelled && "cancel"].filter(Boolean).join(" and ");
    return `no more orders: the target has not shown it can ${missing} an order, and ${inPlay[0]!.clientOrderId} may still be open`;
  }

  closed(clientOrderId: string, as?: Credentials): void {
    const entry = this.entries.get(keyOf(clientOrderId, as));
    if (entry) entry.state = "closed";
  }

  closedByOrderId(orderId: number): void {
    for (const entry of this.entries.values()) if (entry.orderId === orderId) entry.state = "closed";
  }

  owns(clientOrderId: unknown, as?: Credentials): boolean {
    return typeof clientOrderId === "string" && this.entries.has(keyOf(clientOrderId, as));
  }

  get(clientOrderId: string, as?: Credentials): LedgerEntry | undefined {
    return this.entries.get(keyOf(clientOrderId, as));
  }

  /** Orders that may still be open. */
  outstanding(): LedgerEntry[] {
    return [...this.entries.values()].filter((e) => e.state !== "closed");
  }

  /** Orders the server accepted during the run. */
  get placedCount(): number {
    return this.placed.size;
  }

  /** Orders the server accepted during the run as `as` (another account than the run's own). */
  placedAs(as: Credentials): number {
    let count = 0;
    for (const key of this.placed) if (this.entries.get(key)?.as?.apiKey === as.apiKey) count += 1;
    return count;
  }

  /** new_order answers 2xx for the run's own account (not a second one): what its order counters count. */
  acceptedOwn = 0;

  /** The orderIds new_order gave the run's own account, by the symbol its answers name. */
  private readonly accepted = new Map<string, Set<number>>();

  /** The run's own accepted orders by symbol (the orders all_orders must hold), in first-seen order. */
  acceptedIds(): ReadonlyMap<string, readonly number[]> {
    return new Map([...this.accepted].map(([symbol, ids]) => [symbol, [...ids]]));
  }

  /** Whether an order-creating request of this purpose was sent already on `symbol`. */
  hasPurposeOn(purpose: string, symbol: string): boolean {
    for (const entry of this.entries.values())
      if (entry.purpose === purpose && entry.symbol === symbol) return true;
    return false;
  }

  /** Order-creating requests sent during the run, accepted or not. */
  get sentCount(): number {
    return this.entries.size;
  }

  /** Accepted orders by what placed them, in the order the purposes first appeared. */
  placedBy(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const key of this.placed) {
      const purpose = this.entries.get(key)?.purpose ?? "order lifecycle";
      counts[purpose] = (counts[purpose] ?? 0) + 1;
    }
    return counts;
  }
}
