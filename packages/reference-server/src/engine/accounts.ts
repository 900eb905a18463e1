import { newOrderRejected, REJECT } from "../errors.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { Order } from "./types.js";

export interface Balance {
  free: Decimal;
  locked: Decimal;
}

export interface AccountOptions {
  /** Skips MAX_NUM_ORDERS, MAX_NUM_ALGO_ORDERS and the account cap (used by the market maker). */
  exemptFromOrderLimits?: boolean;
}

export class Account {
  readonly id: string;
  readonly balances = new Map<string, Balance>();
  readonly exemptFromOrderLimits: boolean;
  /** Open orders keyed by clientOrderId, which must be unique among them. */
  readonly openOrders = new Map<string, Order>();
  /** Exchange time of the last change of its balances (0 before any). */
  updateTime = 0;

  constructor(id: string, options: AccountOptions = {}) {
    this.id = id;
    this.exemptFromOrderLimits = options.exemptFromOrderLimits ?? false;
  }

  balance(asset: string): Balance {
    let balance = this.balances.get(asset);
    if (!balance) {
      balance = { free: 0n, locked: 0n };
      this.balances.set(asset, balance);
    }
    return balance;
  }

  free(asset: string): Decimal {
    return this.balances.get(asset)?.free ?? 0n;
  }
}

/** What the ledger tells the operation's Journal (journal.ts) about the balances it touched. */
export interface LedgerJournal {
  balance(account: Account, asset: string): void;
  deposit(asset: string): void;
  fee(asset: string): void;
}

/**
 * Moves money between free, locked and the fee pot. Every method keeps the total of an asset
 * (free + locked over all accounts + fees) unchanged, except `deposit`, which also adds to
 * `deposits`: so that total always equals the deposits (checked when a state is loaded).
 */
export class Ledger {
  readonly fees = new Map<string, Decimal>();
  readonly deposits = new Map<string, Decimal>();

  constructor(private readonly journal: LedgerJournal) {}

  deposit(account: Account, asset: string, amount: Decimal): void {
    account.balance(asset).free += amount;
    this.deposits.set(asset, (this.deposits.get(asset) ?? 0n) + amount);
    this.journal.balance(account, asset);
    this.journal.deposit(asset);
  }

  /** Takes `amount` out of the free balance and out of the deposits (an admin's balance change). */
  withdraw(account: Account, asset: string, amount: Decimal): void {
    const free = account.free(asset);
    if (free < amount) {
      throw new RangeError(
        `${account.id} has ${dec.toPlain(free)} ${asset} free, less than the ${dec.toPlain(amount)} to take out (what open orders lock stays)`,
      );
    }
    account.balance(asset).free -= amount;
    this.deposits.set(asset, (this.deposits.get(asset) ?? 0n) - amount);
    this.journal.balance(account, asset);
    this.journal.deposit(asset);
  }

  /** Reserves free funds; -2010 insufficient balance when the free amount is short. */
  lock(account: Account, asset: string, amount: Decimal): void {
    // Checked before touching the balance map, so a rejection leaves no empty entry behind.
    if (account.free(asset) < amount) throw newOrderRejected(REJECT.insufficientBalance);
    const balance = account.balance(asset);
    balance.free -= amount;
    balance.locked += amount;
    this.journal.balance(account, asset);
  }

  unlock(account: Account, asset: string, amount: Decimal): void {
    const balance = account.balance(asset);
    assertCovers(balance.locked, amount, `${account.id} locked ${asset}`);
    balance.locked -= amount;
    balance.free += amount;
    this.journal.balance(account, asset);
  }

  /** Releases `released` from the lock and pays `spent` (≤ released) out of it. */
  spendLocked(account: Account, asset: string, released: Decimal, spent: Decimal): void {
    this.unlock(account, asset, released);
    const balance = account.balance(asset);
    assertCovers(balance.free, spent, `${account.id} free ${asset}`);
    balance.free -= spent;
  }

  /** Credits `gross - fee` to the account and `fee` to the fee pot. */
  receive(account: Account, asset: string, gross: Decimal, fee: Decimal): void {
    account.balance(asset).free += gross - fee;
    this.fees.set(asset, (this.fees.get(asset) ?? 0n) + fee);
    this.journal.balance(account, asset);
    this.journal.fee(asset);
  }
}

// A failed assertion means an engine bug; it must never surface as a client error.
function assertCovers(available: Decimal, needed: Decimal, what: string): void {
  if (available < needed) {
    throw new Error(`Ledger invariant broken: ${what} ${dec.toPlain(available)} < ${dec.toPlain(needed)}`);
  }
}
