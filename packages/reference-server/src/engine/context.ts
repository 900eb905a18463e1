import type { Account, Ledger } from "./accounts.js";
import type { Decimal } from "./decimal.js";

export interface CommissionRates {
  maker: Decimal;
  taker: Decimal;
}

/** What the order flow needs from the exchange, kept narrow so the flow stays testable. */
export interface EngineContext {
  readonly ledger: Ledger;
  readonly commission: CommissionRates;
  readonly maxOpenOrdersPerAccount: number;
  account(id: string): Account;
  newClientOrderId(): string;
}
