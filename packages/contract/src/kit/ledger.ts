/**
 * Every order the run creates, or might have created, is written here before its request is
 * sent, under a client order id of its own. Clean-up cancels whatever is not known to be closed,
 * at the end of the run, after a failure, and on Ctrl-C.
 */
import { randomBytes } from "node:crypto";

export interface LedgerEntry {
  symbol: string;
  clientOrderId: string;
  orderId?: number;
  state: "sent" | "open" | "closed";
  /** What placed it ("order lifecycle", "history", "order arithmetic"…), for the report. */
  purpose: string;
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

  /** Called before an order-creating request is sent. */
  sent(symbol: string, clientOrderId: string, purpose = "order lifecycle"): void {
    this.entries.set(clientOrderId, { symbol, clientOrderId, state: "sent", purpose });
  }

  opened(clientOrderId: string, orderId: number | undefined): void {
    const entry = this.entries.get(clientOrderId);
    if (!entry) return;
    entry.state = "open";
    this.placed.add(clientOrderId);
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

  closed(clientOrderId: string): void {
    const entry = this.entries.get(clientOrderId);
    if (entry) entry.state = "closed";
  }

  closedByOrderId(orderId: number): void {
    for (const entry of this.entries.values()) if (entry.orderId === orderId) entry.state = "closed";
  }

  owns(clientOrderId: unknown): boolean {
    return typeof clientOrderId === "string" && this.entries.has(clientOrderId);
  }

  get(clientOrderId: string): LedgerEntry | undefined {
    return this.entries.get(clientOrderId);
  }

  /** Orders that may still be open. */
  outstanding(): LedgerEntry[] {
    return [...this.entries.values()].filter((e) => e.state !== "closed");
  }

  /** Orders the server accepted during the run. */
  get placedCount(): number {
    return this.placed.size;
  }

  /** Whether an order-creating request of this purpose was sent already. */
  hasPurpose(purpose: string): boolean {
    for (const entry of this.entries.values()) if (entry.purpose === purpose) return true;
    return false;
  }

  /** Order-creating requests sent during the run, accepted or not. */
  get sentCount(): number {
    return this.entries.size;
  }

  /** Accepted orders by what placed them, in the order the purposes first appeared. */
  placedBy(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const id of this.placed) {
      const purpose = this.entries.get(id)?.purpose ?? "order lifecycle";
      counts[purpose] = (counts[purpose] ?? 0) + 1;
    }
    return counts;
  }
}
