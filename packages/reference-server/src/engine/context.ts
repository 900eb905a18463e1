import type { Account, Ledger } from "./accounts.js";
import type { Decimal } from "./decimal.js";
import type { History } from "./history.js";
import type { Journal } from "./journal.js";

export interface CommissionRates {
  maker: Decimal;
  taker: Decimal;
}

/** What the order flow needs from the exchange, kept narrow so the flow stays testable. */
export interface EngineContext {
  readonly ledger: Ledger;
  readonly commission: CommissionRates;
  readonly maxOpenOrdersPerAccount: number;
  /** Records what the running operation changes. */
  readonly journal: Journal;
  /** Closed orders and trades. */
  readonly history: History;
  account(id: string): Account;
  /** A random client order id (for cancel reports). */
  newClientOrderId(): string;
  /** The client order id generated for an order sent without one (it encodes the orderId). */
  clientOrderIdFor(orderId: number): string;
}
