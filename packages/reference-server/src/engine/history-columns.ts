/**
 * The in-memory history's compact records: closed orders, trades and aggregate trades kept in
 * columns (one array per field, one row per record) rather than as the engine's objects. A kept
 * order used to be about 550 bytes in eleven objects (the Order, its client order id, its
 * decimals, its trade with two parties, the aggregate trade, map entries), and the garbage
 * collector copied and marked every one of them again and again as the history grew. A row is
 * a few slots: numbers in typed arrays (which the collector never looks into), decimals in plain
 * arrays that share equal bigints. A read builds the object again from its row.
 *
 * How each field is kept:
 * - numbers (ids, times) in a Float64Array; enums and flags packed into one number;
 * - accounts and assets as their index in an `Interner`;
 * - decimals as bigints, a value equal to the column's previous one sharing its bigint (prices
 *   and quantities repeat, so most decimals of a new record die young);
 * - a generated client order id as two numbers (client-order-ids.ts rebuilds it from them).
 * An open order is kept as the live object until it closes: it still changes.
 */
import { packGeneratedId, unpackGeneratedId } from "./client-order-ids.js";
import type { Decimal } from "./decimal.js";
import {
  type AggTrade,
  isOpen,
  ORDER_STATUSES,
  ORDER_TYPES,
  type Order,
  SIDES,
  TIME_IN_FORCE,
  type Trade,
  type TrailingState,
} from "./types.js";

const INITIAL_ROWS = 64;

/** One numeric field of every row; grows by doubling. */
export class NumberColumn {
  private values = new Float64Array(INITIAL_ROWS);

  at(index: number): number {
    return this.values[index] as number;
  }

  set(index: number, value: number): void {
    if (index >= this.values.length) this.grow(index);
    this.values[index] = value;
  }

  /** Forgets the first `count` of `length` values; the rest move to the front, zeros behind them. */
  dropFront(count: number, length: number): void {
    this.values.copyWithin(0, count, length);
    // A row added later must find zeros (no order), as in a column never written.
    this.values.fill(0, Math.max(length - count, 0), length);
  }

  private grow(index: number): void {
    let size = this.values.length * 2;
    while (size <= index) size *= 2;
    const grown = new Float64Array(size);
    grown.set(this.values);
    this.values = grown;
  }
}

/** One object field of every row (`fill` in rows not yet written). */
export class ObjectColumn<T> {
  protected readonly values: T[] = [];

  constructor(private readonly fill: T) {}

  at(index: number): T {
    return this.values[index] as T;
  }

  set(index: number, value: T): void {
    // Filled up to the row rather than written past the end, so the array never has holes.
    while (this.values.length < index) this.values.push(this.fill);
    this.values[index] = value;
  }

  dropFront(count: number): void {
    this.values.splice(0, count);
  }
}

/** One decimal field of every row; a value equal to the one written before shares its bigint. */
export class DecimalColumn extends ObjectColumn<Decimal> {
  private previous: Decimal = 0n;

  constructor() {
    super(0n);
  }

  override set(index: number, value: Decimal): void {
    if (value === this.previous) super.set(index, this.previous);
    else {
      this.previous = value;
      super.set(index, value);
    }
  }
}

/** Numbers in the order added (ids or rows of one account's records). */
export class NumberList {
  private readonly column = new NumberColumn();
  count = 0;

  push(value: number): void {
    this.column.set(this.count, value);
    this.count += 1;
  }

  at(index: number): number {
    return this.column.at(index);
  }

  /** Keeps only the values that pass `keep` (the retention prune, once a minute). */
  keepWhere(keep: (value: number) => boolean): void {
    let kept = 0;
    for (let index = 0; index < this.count; index += 1) {
      const value = this.column.at(index);
      if (keep(value)) {
        this.column.set(kept, value);
        kept += 1;
      }
    }
    this.count = kept;
  }
}

/** Strings seen many times (account ids, assets) as small numbers. */
export class Interner {
  private readonly indexes = new Map<string, number>();
  private readonly texts: string[] = [];

  index(text: string): number {
    let index = this.indexes.get(text);
    if (index === undefined) {
      index = this.texts.length;
      if (index >= PAIR_SPAN) throw new RangeError(`more than ${PAIR_SPAN} distinct names in the history`);
      this.texts.push(text);
      this.indexes.set(text, index);
    }
    return index;
  }

  text(index: number): string {
    return this.texts[index] as string;
  }
}

/** Two interned indexes kept in one number (2^26 × 2^26 < 2^53). */
const PAIR_SPAN = 2 ** 26;

function pair(high: number, low: number): number {
  return high * PAIR_SPAN + low;
}

function pairHigh(packed: number): number {
  return Math.floor(packed / PAIR_SPAN);
}

function pairLow(packed: number): number {
  return packed % PAIR_SPAN;
}

// An order row's `kind`: these bits, plus the account's index times KIND_SPAN.
const SIDE_SHIFT = 0;
const TYPE_SHIFT = 1;
const TIF_SHIFT = 4;
const STATUS_SHIFT = 6;
const WORKING = 1 << 10;
/** The order is open and its row holds only time and account: read the live object. */
const LIVE = 1 << 11;
/** The order is closed and every field is in its row. */
const CLOSED = 1 << 12;
/** Its client order id was generated and is kept packed in idHigh and idLow. */
const GENERATED = 1 << 13;
/** Fields most orders leave at their defaults are in `unusual`. */
const UNUSUAL = 1 << 14;
const KIND_SPAN = 1 << 15;

/** What few orders set: kept apart, so the usual order's row does not carry them. */
interface Unusual {
  /** A client's own client order id (undefined when generated). */
  clientOrderId: string | undefined;
  origQuoteOrderQty: Decimal;
  stopPrice: Decimal;
  icebergQty: Decimal;
  trailing: TrailingState | undefined;
  strategyId: number | undefined;
  strategyType: number | undefined;
  locked: Decimal;
}

/** Ids this far past the last row are kept apart, so a stray id does not allocate the rows between. */
const MAX_GAP = 1024;

/** Room for one packed client order id. */
const packedId = new Float64Array(2);

/**
 * A symbol's orders by orderId. Ids are given out one after another, so row = orderId − the
 * first id recorded; an id below that, or far past the last row, is kept apart as its object.
 */
export class OrderTable {
  private first = -1;
  private rows = 0;
  private readonly kind = new NumberColumn();
  private readonly time = new NumberColumn();
  private readonly updateTime = new NumberColumn();
  private readonly workingTime = new NumberColumn();
  private readonly bookSeq = new NumberColumn();
  private readonly idHigh = new NumberColumn();
  private readonly idLow = new NumberColumn();
  private readonly price = new DecimalColumn();
  private readonly origQty = new DecimalColumn();
  private readonly executedQty = new DecimalColumn();
  private readonly cummulativeQuoteQty = new DecimalColumn();
  private readonly live = new ObjectColumn<Order | undefined>(undefined);
  private readonly unusual = new Map<number, Unusual>();
  private readonly apart = new Map<number, Order>();

  constructor(
    private readonly symbol: string,
    private readonly accounts: Interner,
  ) {}

  /**
   * Takes in an order that changed: a new one gets its row, an open one that closed is written
   * into it. True when the order is new to the table. An order closes once and then no longer
   * changes, and a row's first object stays the one it holds (as a list of objects would).
   */
  record(order: Order): boolean {
    const row = this.rowFor(order.orderId);
    if (row < 0) return this.recordApart(order);
    const kind = row < this.rows ? this.kind.at(row) : 0;
    if (kind & CLOSED) return false;
    if (kind & LIVE) {
      if (this.live.at(row) === order && !isOpen(order)) this.close(row, order);
      return false;
    }
    this.open(row, order);
    return true;
  }

  has(orderId: number): boolean {
    const row = this.rowOf(orderId);
    return row < 0 ? this.apart.has(orderId) : (this.kind.at(row) & (LIVE | CLOSED)) !== 0;
  }

  get(orderId: number): Order | undefined {
    const row = this.rowOf(orderId);
    if (row < 0) return this.apart.get(orderId);
    const kind = this.kind.at(row);
    if (kind & LIVE) return this.live.at(row);
    return kind & CLOSED ? this.build(row, orderId, kind) : undefined;
  }

  /** The order's time (it is set once, so a live order's row has it too); the order must be held. */
  timeOf(orderId: number): number {
    const row = this.rowOf(orderId);
    return row < 0 ? (this.apart.get(orderId)?.time ?? Number.NaN) : this.time.at(row);
  }

  /** Every order held: those kept apart, then the rest by id. */
  values(): Order[] {
    const held = [...this.apart.values()];
    for (let row = 0; row < this.rows; row += 1) {
      const order = this.get(this.first + row);
      if (order !== undefined) held.push(order);
    }
    return held;
  }

  /** Forgets the closed orders last updated before `cutoff`. */
  prune(cutoff: number): void {
    const expired = (order: Order) => !isOpen(order) && order.updateTime < cutoff;
    for (const [orderId, order] of this.apart) if (expired(order)) this.apart.delete(orderId);
    for (let row = 0; row < this.rows; row += 1) {
      const kind = this.kind.at(row);
      const live = kind & LIVE ? this.live.at(row) : undefined;
      if ((kind & CLOSED && this.updateTime.at(row) < cutoff) || (live && expired(live))) this.forget(row);
    }
    this.dropForgottenFront();
  }

  private rowOf(orderId: number): number {
    const row = orderId - this.first;
    return this.first >= 0 && Number.isInteger(row) && row >= 0 && row < this.rows ? row : -1;
  }

  /** The order's row, added (with any gap before it) when the id is near enough; -1 when kept apart. */
  private rowFor(orderId: number): number {
    if (this.first < 0 && Number.isSafeInteger(orderId) && orderId >= 0) this.first = orderId;
    const row = orderId - this.first;
    if (!(this.first >= 0 && Number.isInteger(row) && row >= 0 && row < this.rows + MAX_GAP)) return -1;
    // Rows of a gap are 0 in `kind`: no order.
    if (row >= this.rows) this.rows = row + 1;
    return row;
  }

  private recordApart(order: Order): boolean {
    if (this.apart.has(order.orderId)) return false;
    this.apart.set(order.orderId, order);
    return true;
  }

  private open(row: number, order: Order): void {
    this.time.set(row, order.time);
    if (isOpen(order)) {
      this.kind.set(row, LIVE + this.accounts.index(order.accountId) * KIND_SPAN);
      this.live.set(row, order);
    } else this.close(row, order);
  }

  private close(row: number, order: Order): void {
    const generated = packGeneratedId(order.clientOrderId, order.orderId, packedId, 0);
    if (generated) {
      this.idHigh.set(row, packedId[0] as number);
      this.idLow.set(row, packedId[1] as number);
    }
    const unusual = !generated || hasUnusualFields(order);
    if (unusual) this.unusual.set(order.orderId, unusualFields(order, generated));
    const flags = packOrderEnums(order) | CLOSED | (generated ? GENERATED : 0) | (unusual ? UNUSUAL : 0);
    this.kind.set(row, flags + this.accounts.index(order.accountId) * KIND_SPAN);
    this.updateTime.set(row, order.updateTime);
    this.workingTime.set(row, order.workingTime);
    this.bookSeq.set(row, order.bookSeq);
    this.price.set(row, order.price);
    this.origQty.set(row, order.origQty);
    this.executedQty.set(row, order.executedQty);
    this.cummulativeQuoteQty.set(row, order.cummulativeQuoteQty);
    this.live.set(row, undefined);
  }

  /** The closed order of `row`, as the engine's object (in buildOrder's field order). */
  private build(row: number, orderId: number, kind: number): Order {
    const flags = kind % KIND_SPAN;
    const extra = flags & UNUSUAL ? this.unusual.get(orderId) : undefined;
    return {
      accountId: this.accounts.text((kind - flags) / KIND_SPAN),
      symbol: this.symbol,
      orderId,
      clientOrderId:
        flags & GENERATED
          ? unpackGeneratedId(orderId, this.idHigh.at(row), this.idLow.at(row))
          : (extra?.clientOrderId ?? ""),
      side: SIDES[(flags >> SIDE_SHIFT) & 1] as Order["side"],
      type: ORDER_TYPES[(flags >> TYPE_SHIFT) & 7] as Order["type"],
      timeInForce: TIME_IN_FORCE[(flags >> TIF_SHIFT) & 3] as Order["timeInForce"],
      price: this.price.at(row),
      origQty: this.origQty.at(row),
      origQuoteOrderQty: extra?.origQuoteOrderQty ?? 0n,
      executedQty: this.executedQty.at(row),
      cummulativeQuoteQty: this.cummulativeQuoteQty.at(row),
      stopPrice: extra?.stopPrice ?? 0n,
      icebergQty: extra?.icebergQty ?? 0n,
      trailing: extra?.trailing,
      status: ORDER_STATUSES[(flags >> STATUS_SHIFT) & 15] as Order["status"],
      isWorking: (flags & WORKING) !== 0,
      time: this.time.at(row),
      updateTime: this.updateTime.at(row),
      workingTime: this.workingTime.at(row),
      strategyId: extra?.strategyId,
      strategyType: extra?.strategyType,
      locked: extra?.locked ?? 0n,
      bookSeq: this.bookSeq.at(row),
    };
  }

  private forget(row: number): void {
    this.unusual.delete(this.first + row);
    this.kind.set(row, 0);
    this.live.set(row, undefined);
  }

  /** Drops the leading rows that hold no order, so a pruned history shrinks. */
  private dropForgottenFront(): void {
    let count = 0;
    while (count < this.rows && (this.kind.at(count) & (LIVE | CLOSED)) === 0) count += 1;
    if (count === 0) return;
    for (const column of this.numberColumns()) column.dropFront(count, this.rows);
    for (const column of this.objectColumns()) column.dropFront(count);
    this.first += count;
    this.rows -= count;
  }

  private numberColumns(): NumberColumn[] {
    return [this.kind, this.time, this.updateTime, this.workingTime, this.bookSeq, this.idHigh, this.idLow];
  }

  private objectColumns(): ObjectColumn<unknown>[] {
    return [this.price, this.origQty, this.executedQty, this.cummulativeQuoteQty, this.live];
  }
}

function packOrderEnums(order: Order): number {
  return (
    (SIDES.indexOf(order.side) << SIDE_SHIFT) |
    (ORDER_TYPES.indexOf(order.type) << TYPE_SHIFT) |
    (TIME_IN_FORCE.indexOf(order.timeInForce) << TIF_SHIFT) |
    (ORDER_STATUSES.indexOf(order.status) << STATUS_SHIFT) |
    (order.isWorking ? WORKING : 0)
  );
}

function hasUnusualFields(order: Order): boolean {
  return (
    order.origQuoteOrderQty !== 0n ||
    order.stopPrice !== 0n ||
    order.icebergQty !== 0n ||
    order.trailing !== undefined ||
    order.strategyId !== undefined ||
    order.strategyType !== undefined ||
    order.locked !== 0n
  );
}

function unusualFields(order: Order, generated: boolean): Unusual {
  return {
    clientOrderId: generated ? undefined : order.clientOrderId,
    origQuoteOrderQty: order.origQuoteOrderQty,
    stopPrice: order.stopPrice,
    icebergQty: order.icebergQty,
    trailing: order.trailing,
    strategyId: order.strategyId,
    strategyType: order.strategyType,
    locked: order.locked,
  };
}

/**
 * Rows appended in time order (trades, aggregate trades) and forgotten from the front. A row
 * keeps its number for life (`dropped` counts those forgotten), so accounts can list theirs.
 */
abstract class AppendedRows {
  /** Rows forgotten from the front. */
  dropped = 0;
  /** Rows held. */
  count = 0;
  protected readonly id = new NumberColumn();
  protected readonly time = new NumberColumn();

  idAt(index: number): number {
    return this.id.at(index);
  }

  timeAt(index: number): number {
    return this.time.at(index);
  }

  /** Forgets the first `count` rows. */
  dropFront(count: number): void {
    if (count <= 0) return;
    for (const column of this.numberColumns()) column.dropFront(count, this.count);
    for (const column of this.decimalColumns()) column.dropFront(count);
    this.dropped += count;
    this.count -= count;
  }

  protected abstract numberColumns(): NumberColumn[];
  protected abstract decimalColumns(): DecimalColumn[];
}

/** A symbol's trades, oldest first. */
export class TradeTable extends AppendedRows {
  private readonly buyerOrder = new NumberColumn();
  private readonly sellerOrder = new NumberColumn();
  /** Buyer's and seller's account indexes, paired. */
  private readonly parties = new NumberColumn();
  /** Buyer's and seller's commission asset indexes, paired; the buyer's doubled plus isBuyerMaker. */
  private readonly assets = new NumberColumn();
  private readonly price = new DecimalColumn();
  private readonly qty = new DecimalColumn();
  private readonly quoteQty = new DecimalColumn();
  private readonly buyerCommission = new DecimalColumn();
  private readonly sellerCommission = new DecimalColumn();

  constructor(
    private readonly symbol: string,
    private readonly accounts: Interner,
    private readonly assetNames: Interner,
  ) {
    super();
  }

  /** Appends the trade; its row number (for the accounts' lists). */
  append(trade: Trade): number {
    const index = this.count;
    const { buyer, seller } = trade;
    this.id.set(index, trade.id);
    this.time.set(index, trade.time);
    this.buyerOrder.set(index, buyer.orderId);
    this.sellerOrder.set(index, seller.orderId);
    this.parties.set(
      index,
      pair(this.accounts.index(buyer.accountId), this.accounts.index(seller.accountId)),
    );
    const buyerAsset = this.assetNames.index(buyer.commissionAsset) * 2 + (trade.isBuyerMaker ? 1 : 0);
    this.assets.set(index, pair(buyerAsset, this.assetNames.index(seller.commissionAsset)));
    this.price.set(index, trade.price);
    this.qty.set(index, trade.qty);
    this.quoteQty.set(index, trade.quoteQty);
    this.buyerCommission.set(index, buyer.commission);
    this.sellerCommission.set(index, seller.commission);
    this.count += 1;
    return index + this.dropped;
  }

  /** The trade at `index` (0 is the oldest held), as the engine's object. */
  at(index: number): Trade {
    const parties = this.parties.at(index);
    const assets = this.assets.at(index);
    const buyerAsset = pairHigh(assets);
    return {
      symbol: this.symbol,
      id: this.id.at(index),
      price: this.price.at(index),
      qty: this.qty.at(index),
      quoteQty: this.quoteQty.at(index),
      time: this.time.at(index),
      isBuyerMaker: buyerAsset % 2 === 1,
      buyer: {
        accountId: this.accounts.text(pairHigh(parties)),
        orderId: this.buyerOrder.at(index),
        commission: this.buyerCommission.at(index),
        commissionAsset: this.assetNames.text(Math.floor(buyerAsset / 2)),
      },
      seller: {
        accountId: this.accounts.text(pairLow(parties)),
        orderId: this.sellerOrder.at(index),
        commission: this.sellerCommission.at(index),
        commissionAsset: this.assetNames.text(pairLow(assets)),
      },
    };
  }

  /** Whether the account's order `orderId` is a party to the trade at `index`. */
  involves(index: number, accountId: string, orderId: number): boolean {
    const parties = this.parties.at(index);
    return (
      (this.buyerOrder.at(index) === orderId && this.accounts.text(pairHigh(parties)) === accountId) ||
      (this.sellerOrder.at(index) === orderId && this.accounts.text(pairLow(parties)) === accountId)
    );
  }

  protected numberColumns(): NumberColumn[] {
    return [this.id, this.time, this.buyerOrder, this.sellerOrder, this.parties, this.assets];
  }

  protected decimalColumns(): DecimalColumn[] {
    return [this.price, this.qty, this.quoteQty, this.buyerCommission, this.sellerCommission];
  }
}

/** A symbol's aggregate trades, oldest first. */
export class AggTradeTable extends AppendedRows {
  private readonly firstTradeId = new NumberColumn();
  private readonly lastTradeId = new NumberColumn();
  /** The taker's orderId doubled, plus isBuyerMaker. */
  private readonly taker = new NumberColumn();
  private readonly price = new DecimalColumn();
  private readonly qty = new DecimalColumn();
  /**
   * The newest aggregate trade's object: the next fill of its taker at its price extends it (in
   * the same operation, or a stop's in a later one), and then it is recorded again.
   */
  private newest: AggTrade | undefined;

  constructor(private readonly symbol: string) {
    super();
  }

  record(agg: AggTrade): void {
    if (agg === this.newest) this.write(this.count - 1, agg);
    else {
      this.newest = agg;
      this.write(this.count, agg);
      this.count += 1;
    }
  }

  at(index: number): AggTrade {
    const taker = this.taker.at(index);
    return {
      symbol: this.symbol,
      id: this.id.at(index),
      price: this.price.at(index),
      qty: this.qty.at(index),
      firstTradeId: this.firstTradeId.at(index),
      lastTradeId: this.lastTradeId.at(index),
      time: this.time.at(index),
      isBuyerMaker: taker % 2 === 1,
      takerOrderId: Math.floor(taker / 2),
    };
  }

  override dropFront(count: number): void {
    super.dropFront(count);
    if (this.count === 0) this.newest = undefined;
  }

  private write(index: number, agg: AggTrade): void {
    this.id.set(index, agg.id);
    this.time.set(index, agg.time);
    this.firstTradeId.set(index, agg.firstTradeId);
    this.lastTradeId.set(index, agg.lastTradeId);
    this.taker.set(index, agg.takerOrderId * 2 + (agg.isBuyerMaker ? 1 : 0));
    this.price.set(index, agg.price);
    this.qty.set(index, agg.qty);
  }

  protected numberColumns(): NumberColumn[] {
    return [this.id, this.time, this.firstTradeId, this.lastTradeId, this.taker];
  }

  protected decimalColumns(): DecimalColumn[] {
    return [this.price, this.qty];
  }
}
