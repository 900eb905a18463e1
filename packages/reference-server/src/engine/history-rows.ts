/**
 * The in-memory history's compact records: closed orders, trades and aggregate trades kept as
 * rows of plain numbers and bigints rather than as the engine's objects. A kept order used to be
 * about 550 bytes in eleven objects (the Order, its client order id, its decimals, its trade with
 * two parties, the aggregate trade, map entries), and the garbage collector copied and marked
 * every one of them again and again as the history grew. Now a record is a row: its numbers in
 * a Float64Array (which the collector never looks into), its decimals in a plain array that
 * shares equal bigints. A read builds the object again from its row.
 *
 * How each field is kept:
 * - numbers (ids, times) as they are; enums and flags packed into one number;
 * - accounts and assets as their index in an `Interner`;
 * - decimals as bigints, a value equal to its field's previous one sharing its bigint (prices
 *   and quantities repeat, so most decimals of a new record die young);
 * - a generated client order id as two numbers (client-order-ids.ts rebuilds it from them);
 * - the fields few orders set (stop price, iceberg, trailing, strategy, a client's own id) in
 *   one small object per such order.
 * An open order is kept as its live object until it closes: it still changes.
 */
import { type Candle, candleOfTrade, levelOpen } from "./candles.js";
import { namesItsOrder, packGeneratedId, unpackGeneratedId } from "./client-order-ids.js";
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

/**
 * Rows are kept in chunks of CHUNK_ROWS, each allocated once and never copied: a single array
 * grown by doubling copied every row again at each step, into fresh memory. The first chunk
 * starts small and doubles until full, so a small history stays small.
 */
const CHUNK_SHIFT = 11;
const CHUNK_ROWS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_ROWS - 1;
const FIRST_CHUNK_ROWS = 16;

/** The numeric fields of every row, row after row in Float64Array chunks (a row's fields share a cache line). */
export class NumberRows {
  private readonly chunks: Float64Array[];
  /** Rows forgotten at the front of the first chunk. */
  private offset = 0;

  constructor(private readonly fields: number) {
    this.chunks = [new Float64Array(FIRST_CHUNK_ROWS * fields)];
  }

  at(row: number, field: number): number {
    const place = row + this.offset;
    const chunk = this.chunks[place >> CHUNK_SHIFT] as Float64Array;
    return chunk[(place & CHUNK_MASK) * this.fields + field] as number;
  }

  /** Writes a field of a row made room for (`reserve`). */
  set(row: number, field: number, value: number): void {
    const place = row + this.offset;
    const chunk = this.chunks[place >> CHUNK_SHIFT] as Float64Array;
    chunk[(place & CHUNK_MASK) * this.fields + field] = value;
  }

  /** Makes room for the rows up to `row`. */
  reserve(row: number): void {
    const place = row + this.offset;
    const index = place >> CHUNK_SHIFT;
    if (index === 0) this.growFirst((place + 1) * this.fields);
    while (this.chunks.length <= index) this.chunks.push(new Float64Array(CHUNK_ROWS * this.fields));
  }

  /** Forgets the first `count` rows; a chunk is let go once all its rows are. */
  dropFront(count: number): void {
    this.offset += count;
    while (this.offset >= CHUNK_ROWS && this.chunks.length > 1) {
      this.chunks.shift();
      this.offset -= CHUNK_ROWS;
    }
  }

  private growFirst(size: number): void {
    const first = this.chunks[0] as Float64Array;
    if (size <= first.length) return;
    const grown = new Float64Array(Math.min(Math.max(first.length * 2, size), CHUNK_ROWS * this.fields));
    grown.set(first);
    this.chunks[0] = grown;
  }
}

/** The object fields of every row, row after row in chunks (`fill` where not yet written). */
export class ObjectRows<T> {
  private readonly chunks: T[][] = [[]];
  /** Rows forgotten at the front of the first chunk. */
  private offset = 0;

  constructor(
    private readonly fields: number,
    private readonly fill: T,
  ) {}

  at(row: number, field: number): T {
    const place = row + this.offset;
    const chunk = this.chunks[place >> CHUNK_SHIFT] as T[];
    return chunk[(place & CHUNK_MASK) * this.fields + field] as T;
  }

  /** Writes a field of a row made room for (`reserve`). */
  set(row: number, field: number, value: T): void {
    const place = row + this.offset;
    const chunk = this.chunks[place >> CHUNK_SHIFT] as T[];
    chunk[(place & CHUNK_MASK) * this.fields + field] = value;
  }

  /** Makes room for the rows up to `row` (the first chunk filled up to it, so it never has holes). */
  reserve(row: number): void {
    const place = row + this.offset;
    const index = place >> CHUNK_SHIFT;
    if (index === 0) {
      const first = this.chunks[0] as T[];
      const end = (place + 1) * this.fields;
      while (first.length < end) first.push(this.fill);
    }
    while (this.chunks.length <= index)
      this.chunks.push(new Array<T>(CHUNK_ROWS * this.fields).fill(this.fill));
  }

  /** Forgets the first `count` rows; a chunk is let go once all its rows are. */
  dropFront(count: number): void {
    this.offset += count;
    while (this.offset >= CHUNK_ROWS && this.chunks.length > 1) {
      this.chunks.shift();
      this.offset -= CHUNK_ROWS;
    }
  }
}

/** Decimal fields; a value equal to the one its field was given before shares that bigint. */
export class DecimalRows extends ObjectRows<Decimal> {
  private readonly previous: Decimal[];

  constructor(fields: number) {
    super(fields, 0n);
    this.previous = new Array<Decimal>(fields).fill(0n);
  }

  override set(row: number, field: number, value: Decimal): void {
    const previous = this.previous[field] as Decimal;
    if (value === previous) super.set(row, field, previous);
    else {
      this.previous[field] = value;
      super.set(row, field, value);
    }
  }
}

/**
 * Numbers in the order added (ids or rows of one account's records), in a plain array: small
 * integers, kept unboxed, one step from the list (a list is pushed to on every order, and under
 * load each further step to its memory tends to miss the cache).
 */
export class NumberList {
  private values: number[] = [];

  get count(): number {
    return this.values.length;
  }

  push(value: number): void {
    this.values.push(value);
  }

  at(index: number): number {
    return this.values[index] as number;
  }

  /** Keeps only the values that pass `keep` (the retention prune, once a minute). */
  keepWhere(keep: (value: number) => boolean): void {
    this.values = this.values.filter(keep);
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
/** Its client order id was generated and is kept packed in ID_HIGH and ID_LOW. */
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

// An order row's numeric fields.
const KIND = 0;
const TIME = 1;
const UPDATE_TIME = 2;
const WORKING_TIME = 3;
const BOOK_SEQ = 4;
const ID_HIGH = 5;
const ID_LOW = 6;
const ORDER_NUMBERS = 7;
// Its decimal fields.
const PRICE = 0;
const ORIG_QTY = 1;
const EXECUTED_QTY = 2;
const CUMMULATIVE_QUOTE_QTY = 3;
const ORDER_DECIMALS = 4;

/** What `OrderTable.record` found: an order it knew, or a new one named by its id or not. */
export const RECORDED = { known: 0, namedByItsId: 1, namedByClient: 2 } as const;
type Recorded = (typeof RECORDED)[keyof typeof RECORDED];

/**
 * A symbol's orders by orderId. Ids are given out one after another, so row = orderId − the
 * first id recorded; an id below that, or far past the last row, is kept apart as its object.
 */
export class OrderTable {
  private first = -1;
  private rows = 0;
  private readonly numbers = new NumberRows(ORDER_NUMBERS);
  private readonly decimals = new DecimalRows(ORDER_DECIMALS);
  private readonly live = new ObjectRows<Order | undefined>(1, undefined);
  private readonly unusual = new Map<number, Unusual>();
  private readonly apart = new Map<number, Order>();

  constructor(
    private readonly symbol: string,
    private readonly accounts: Interner,
  ) {}

  /**
   * Takes in an order that changed: a new one gets its row, an open one that closed is written
   * into it. An order closes once and then no longer changes, and a row's first object stays
   * the one it holds (as a list of objects would).
   */
  record(order: Order): Recorded {
    const row = this.rowFor(order.orderId);
    if (row < 0) return this.recordApart(order);
    const kind = row < this.rows ? this.numbers.at(row, KIND) : 0;
    if (kind & CLOSED) return RECORDED.known;
    if (kind & LIVE) {
      if (this.live.at(row, 0) === order && !isOpen(order)) this.close(row, order, kind);
      return RECORDED.known;
    }
    return this.open(row, order) ? RECORDED.namedByItsId : RECORDED.namedByClient;
  }

  has(orderId: number): boolean {
    const row = this.rowOf(orderId);
    return row < 0 ? this.apart.has(orderId) : (this.numbers.at(row, KIND) & (LIVE | CLOSED)) !== 0;
  }

  get(orderId: number): Order | undefined {
    const row = this.rowOf(orderId);
    if (row < 0) return this.apart.get(orderId);
    const kind = this.numbers.at(row, KIND);
    if (kind & LIVE) return this.live.at(row, 0);
    return kind & CLOSED ? this.build(row, orderId, kind) : undefined;
  }

  /** The order's time (it is set once, so a live order's row has it too); the order must be held. */
  timeOf(orderId: number): number {
    const row = this.rowOf(orderId);
    return row < 0 ? (this.apart.get(orderId)?.time ?? Number.NaN) : this.numbers.at(row, TIME);
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
      const kind = this.numbers.at(row, KIND);
      const live = kind & LIVE ? this.live.at(row, 0) : undefined;
      const closedBefore = (kind & CLOSED) !== 0 && this.numbers.at(row, UPDATE_TIME) < cutoff;
      if (closedBefore || (live && expired(live))) this.forget(row);
    }
    this.dropForgottenFront();
  }

  private rowOf(orderId: number): number {
    const row = orderId - this.first;
    return this.first >= 0 && Number.isInteger(row) && row >= 0 && row < this.rows ? row : -1;
  }

  /** The order's row (past the last one for a new id near enough); -1 when kept apart. */
  private rowFor(orderId: number): number {
    if (this.first < 0 && Number.isSafeInteger(orderId) && orderId >= 0) this.first = orderId;
    const row = orderId - this.first;
    return this.first >= 0 && Number.isInteger(row) && row >= 0 && row < this.rows + MAX_GAP ? row : -1;
  }

  private recordApart(order: Order): Recorded {
    if (this.apart.has(order.orderId)) return RECORDED.known;
    this.apart.set(order.orderId, order);
    return namesItsOrder(order.clientOrderId, order.orderId) ? RECORDED.namedByItsId : RECORDED.namedByClient;
  }

  /** Gives a new order its row (rows of a gap before it stay 0 in KIND: no order); true if its id names it. */
  private open(row: number, order: Order): boolean {
    if (row >= this.rows) this.rows = row + 1;
    this.numbers.reserve(row);
    this.decimals.reserve(row);
    this.live.reserve(row);
    const generated = packGeneratedId(order.clientOrderId, order.orderId, packedId, 0);
    if (generated) {
      this.numbers.set(row, ID_HIGH, packedId[0] as number);
      this.numbers.set(row, ID_LOW, packedId[1] as number);
    }
    this.numbers.set(row, TIME, order.time);
    const kind = (generated ? GENERATED : 0) + this.accounts.index(order.accountId) * KIND_SPAN;
    if (isOpen(order)) {
      this.numbers.set(row, KIND, kind + LIVE);
      this.live.set(row, 0, order);
    } else this.close(row, order, kind);
    return generated;
  }

  /** Writes the closed order into its row; `kind` holds its account and whether its id was generated. */
  private close(row: number, order: Order, kind: number): void {
    const generated = (kind & GENERATED) !== 0;
    const unusual = !generated || hasUnusualFields(order);
    if (unusual) this.unusual.set(order.orderId, unusualFields(order, generated));
    const account = kind - (kind % KIND_SPAN);
    const flags = packOrderEnums(order) | CLOSED | (generated ? GENERATED : 0) | (unusual ? UNUSUAL : 0);
    const { numbers, decimals } = this;
    numbers.set(row, KIND, flags + account);
    numbers.set(row, UPDATE_TIME, order.updateTime);
    numbers.set(row, WORKING_TIME, order.workingTime);
    numbers.set(row, BOOK_SEQ, order.bookSeq);
    decimals.set(row, PRICE, order.price);
    decimals.set(row, ORIG_QTY, order.origQty);
    decimals.set(row, EXECUTED_QTY, order.executedQty);
    decimals.set(row, CUMMULATIVE_QUOTE_QTY, order.cummulativeQuoteQty);
    this.live.set(row, 0, undefined);
  }

  /** The closed order of `row`, as the engine's object (in buildOrder's field order). */
  private build(row: number, orderId: number, kind: number): Order {
    const flags = kind % KIND_SPAN;
    const extra = flags & UNUSUAL ? this.unusual.get(orderId) : undefined;
    const { numbers, decimals } = this;
    return {
      accountId: this.accounts.text((kind - flags) / KIND_SPAN),
      symbol: this.symbol,
      orderId,
      clientOrderId:
        flags & GENERATED
          ? unpackGeneratedId(orderId, numbers.at(row, ID_HIGH), numbers.at(row, ID_LOW))
          : (extra?.clientOrderId ?? ""),
      side: SIDES[(flags >> SIDE_SHIFT) & 1] as Order["side"],
      type: ORDER_TYPES[(flags >> TYPE_SHIFT) & 7] as Order["type"],
      timeInForce: TIME_IN_FORCE[(flags >> TIF_SHIFT) & 3] as Order["timeInForce"],
      price: decimals.at(row, PRICE),
      origQty: decimals.at(row, ORIG_QTY),
      origQuoteOrderQty: extra?.origQuoteOrderQty ?? 0n,
      executedQty: decimals.at(row, EXECUTED_QTY),
      cummulativeQuoteQty: decimals.at(row, CUMMULATIVE_QUOTE_QTY),
      stopPrice: extra?.stopPrice ?? 0n,
      icebergQty: extra?.icebergQty ?? 0n,
      trailing: extra?.trailing,
      status: ORDER_STATUSES[(flags >> STATUS_SHIFT) & 15] as Order["status"],
      isWorking: (flags & WORKING) !== 0,
      time: numbers.at(row, TIME),
      updateTime: numbers.at(row, UPDATE_TIME),
      workingTime: numbers.at(row, WORKING_TIME),
      strategyId: extra?.strategyId,
      strategyType: extra?.strategyType,
      locked: extra?.locked ?? 0n,
      bookSeq: numbers.at(row, BOOK_SEQ),
    };
  }

  private forget(row: number): void {
    this.unusual.delete(this.first + row);
    this.numbers.set(row, KIND, 0);
    this.live.set(row, 0, undefined);
  }

  /** Drops the leading rows that hold no order, so a pruned history shrinks. */
  private dropForgottenFront(): void {
    let count = 0;
    while (count < this.rows && (this.numbers.at(count, KIND) & (LIVE | CLOSED)) === 0) count += 1;
    if (count === 0) return;
    this.numbers.dropFront(count);
    this.decimals.dropFront(count);
    this.live.dropFront(count);
    this.first += count;
    this.rows -= count;
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
 * Field 0 of the numbers is the id, field 1 the time.
 */
abstract class AppendedRows {
  /** Rows forgotten from the front. */
  dropped = 0;
  /** Rows held. */
  count = 0;

  constructor(
    protected readonly numbers: NumberRows,
    protected readonly decimals: DecimalRows,
  ) {}

  idAt(index: number): number {
    return this.numbers.at(index, ID);
  }

  timeAt(index: number): number {
    return this.numbers.at(index, ROW_TIME);
  }

  /** Forgets the first `count` rows. */
  dropFront(count: number): void {
    if (count <= 0) return;
    this.numbers.dropFront(count);
    this.decimals.dropFront(count);
    this.dropped += count;
    this.count -= count;
  }

  /** Makes room for one more row; its index. */
  protected appendRow(): number {
    this.numbers.reserve(this.count);
    this.decimals.reserve(this.count);
    this.count += 1;
    return this.count - 1;
  }
}

const ID = 0;
const ROW_TIME = 1;
// A trade's other numeric fields.
const BUYER_ORDER = 2;
const SELLER_ORDER = 3;
/** Buyer's and seller's account indexes, paired. */
const PARTIES = 4;
/** Buyer's and seller's commission asset indexes, paired; the buyer's doubled plus isBuyerMaker. */
const ASSETS = 5;
const TRADE_NUMBERS = 6;
// Its decimal fields.
const TRADE_PRICE = 0;
const QTY = 1;
const QUOTE_QTY = 2;
const BUYER_COMMISSION = 3;
const SELLER_COMMISSION = 4;
const TRADE_DECIMALS = 5;

/** A symbol's trades, oldest first. */
export class TradeTable extends AppendedRows {
  constructor(
    private readonly symbol: string,
    private readonly accounts: Interner,
    private readonly assetNames: Interner,
  ) {
    super(new NumberRows(TRADE_NUMBERS), new DecimalRows(TRADE_DECIMALS));
  }

  /** The commission assets of the trade appended last, and their paired indexes. */
  private lastAssets: { buyer: string; seller: string; paired: number } | undefined;

  /** Appends the trade of the accounts with these indexes; its row number (for the accounts' lists). */
  append(trade: Trade, buyerIndex: number, sellerIndex: number): number {
    const index = this.appendRow();
    const { numbers, decimals } = this;
    const { buyer, seller } = trade;
    numbers.set(index, ID, trade.id);
    numbers.set(index, ROW_TIME, trade.time);
    numbers.set(index, BUYER_ORDER, buyer.orderId);
    numbers.set(index, SELLER_ORDER, seller.orderId);
    numbers.set(index, PARTIES, pair(buyerIndex, sellerIndex));
    const assets = this.pairedAssets(buyer.commissionAsset, seller.commissionAsset);
    numbers.set(index, ASSETS, assets + (trade.isBuyerMaker ? PAIR_SPAN : 0));
    decimals.set(index, TRADE_PRICE, trade.price);
    decimals.set(index, QTY, trade.qty);
    decimals.set(index, QUOTE_QTY, trade.quoteQty);
    decimals.set(index, BUYER_COMMISSION, buyer.commission);
    decimals.set(index, SELLER_COMMISSION, seller.commission);
    return index + this.dropped;
  }

  /** The assets' indexes paired, the buyer's doubled; a symbol's trades pay the same two assets. */
  private pairedAssets(buyer: string, seller: string): number {
    const last = this.lastAssets;
    if (last?.buyer === buyer && last.seller === seller) return last.paired;
    const paired = pair(this.assetNames.index(buyer) * 2, this.assetNames.index(seller));
    this.lastAssets = { buyer, seller, paired };
    return paired;
  }

  /** The trade at `index` (0 is the oldest held), as the engine's object. */
  at(index: number): Trade {
    const { numbers, decimals } = this;
    const parties = numbers.at(index, PARTIES);
    const assets = numbers.at(index, ASSETS);
    const buyerAsset = pairHigh(assets);
    return {
      symbol: this.symbol,
      id: numbers.at(index, ID),
      price: decimals.at(index, TRADE_PRICE),
      qty: decimals.at(index, QTY),
      quoteQty: decimals.at(index, QUOTE_QTY),
      time: numbers.at(index, ROW_TIME),
      isBuyerMaker: buyerAsset % 2 === 1,
      buyer: {
        accountId: this.accounts.text(pairHigh(parties)),
        orderId: numbers.at(index, BUYER_ORDER),
        commission: decimals.at(index, BUYER_COMMISSION),
        commissionAsset: this.assetNames.text(Math.floor(buyerAsset / 2)),
      },
      seller: {
        accountId: this.accounts.text(pairLow(parties)),
        orderId: numbers.at(index, SELLER_ORDER),
        commission: decimals.at(index, SELLER_COMMISSION),
        commissionAsset: this.assetNames.text(pairLow(assets)),
      },
    };
  }

  /** Whether the account's order `orderId` is a party to the trade at `index`. */
  involves(index: number, accountId: string, orderId: number): boolean {
    const { numbers } = this;
    const parties = numbers.at(index, PARTIES);
    return (
      (numbers.at(index, BUYER_ORDER) === orderId && this.accounts.text(pairHigh(parties)) === accountId) ||
      (numbers.at(index, SELLER_ORDER) === orderId && this.accounts.text(pairLow(parties)) === accountId)
    );
  }
}

// An aggregate trade's other numeric fields.
const FIRST_TRADE_ID = 2;
const LAST_TRADE_ID = 3;
/** The taker's orderId doubled, plus isBuyerMaker. */
const TAKER = 4;
const AGG_NUMBERS = 5;
// Its decimal fields.
const AGG_PRICE = 0;
const AGG_QTY = 1;
const AGG_DECIMALS = 2;

/** A symbol's aggregate trades, oldest first. */
export class AggTradeTable extends AppendedRows {
  /**
   * The newest aggregate trade's object: the next fill of its taker at its price extends it (in
   * the same operation, or a stop's in a later one), and then it is recorded again.
   */
  private newest: AggTrade | undefined;

  constructor(private readonly symbol: string) {
    super(new NumberRows(AGG_NUMBERS), new DecimalRows(AGG_DECIMALS));
  }

  record(agg: AggTrade): void {
    if (agg === this.newest) this.write(this.count - 1, agg);
    else {
      this.newest = agg;
      this.write(this.appendRow(), agg);
    }
  }

  at(index: number): AggTrade {
    const { numbers, decimals } = this;
    const taker = numbers.at(index, TAKER);
    return {
      symbol: this.symbol,
      id: numbers.at(index, ID),
      price: decimals.at(index, AGG_PRICE),
      qty: decimals.at(index, AGG_QTY),
      firstTradeId: numbers.at(index, FIRST_TRADE_ID),
      lastTradeId: numbers.at(index, LAST_TRADE_ID),
      time: numbers.at(index, ROW_TIME),
      isBuyerMaker: taker % 2 === 1,
      takerOrderId: Math.floor(taker / 2),
    };
  }

  override dropFront(count: number): void {
    super.dropFront(count);
    if (this.count === 0) this.newest = undefined;
  }

  private write(index: number, agg: AggTrade): void {
    const { numbers, decimals } = this;
    numbers.set(index, ID, agg.id);
    numbers.set(index, ROW_TIME, agg.time);
    numbers.set(index, FIRST_TRADE_ID, agg.firstTradeId);
    numbers.set(index, LAST_TRADE_ID, agg.lastTradeId);
    numbers.set(index, TAKER, agg.takerOrderId * 2 + (agg.isBuyerMaker ? 1 : 0));
    decimals.set(index, AGG_PRICE, agg.price);
    decimals.set(index, AGG_QTY, agg.qty);
  }
}

// A candle's numeric fields.
const CANDLE_OPEN = 0;
const CANDLE_FIRST_ID = 1;
const CANDLE_LAST_ID = 2;
const CANDLE_COUNT = 3;
const CANDLE_NUMBERS = 4;
// Its decimal fields.
const CANDLE_OPEN_PRICE = 0;
const CANDLE_HIGH = 1;
const CANDLE_LOW = 2;
const CANDLE_CLOSE = 3;
const CANDLE_VOLUME = 4;
const CANDLE_QUOTE_VOLUME = 5;
const CANDLE_TAKER_BUY_VOLUME = 6;
const CANDLE_TAKER_BUY_QUOTE_VOLUME = 7;
const CANDLE_DECIMALS = 8;

/** A symbol's candles of one stored level, oldest first; the last one is folded into in place. */
export class CandleTable {
  private readonly numbers = new NumberRows(CANDLE_NUMBERS);
  private readonly decimals = new DecimalRows(CANDLE_DECIMALS);
  /** Rows held. */
  count = 0;

  openTimeAt(index: number): number {
    return this.numbers.at(index, CANDLE_OPEN);
  }

  at(index: number): Candle {
    const n = (field: number) => this.numbers.at(index, field);
    const d = (field: number) => this.decimals.at(index, field);
    return {
      openTime: n(CANDLE_OPEN),
      firstId: n(CANDLE_FIRST_ID),
      lastId: n(CANDLE_LAST_ID),
      count: n(CANDLE_COUNT),
      open: d(CANDLE_OPEN_PRICE),
      high: d(CANDLE_HIGH),
      low: d(CANDLE_LOW),
      close: d(CANDLE_CLOSE),
      volume: d(CANDLE_VOLUME),
      quoteVolume: d(CANDLE_QUOTE_VOLUME),
      takerBuyVolume: d(CANDLE_TAKER_BUY_VOLUME),
      takerBuyQuoteVolume: d(CANDLE_TAKER_BUY_QUOTE_VOLUME),
    };
  }

  /**
   * Folds a trade into the candle of `level` it falls in: in place into the last row when that
   * candle opens at the same time (no object built: a trade folds into five levels), else as a
   * new row.
   */
  addTrade(trade: Trade, level: number): void {
    const last = this.count - 1;
    const openTime = levelOpen(trade.time, level);
    if (last < 0 || this.openTimeAt(last) !== openTime) {
      this.numbers.reserve(this.count);
      this.decimals.reserve(this.count);
      this.count += 1;
      this.write(last + 1, candleOfTrade(trade, level));
      return;
    }
    const n = this.numbers;
    const d = this.decimals;
    const { price, qty, quoteQty } = trade;
    n.set(last, CANDLE_LAST_ID, trade.id);
    n.set(last, CANDLE_COUNT, n.at(last, CANDLE_COUNT) + 1);
    if (price > d.at(last, CANDLE_HIGH)) d.set(last, CANDLE_HIGH, price);
    if (price < d.at(last, CANDLE_LOW)) d.set(last, CANDLE_LOW, price);
    d.set(last, CANDLE_CLOSE, price);
    d.set(last, CANDLE_VOLUME, d.at(last, CANDLE_VOLUME) + qty);
    d.set(last, CANDLE_QUOTE_VOLUME, d.at(last, CANDLE_QUOTE_VOLUME) + quoteQty);
    if (!trade.isBuyerMaker) {
      d.set(last, CANDLE_TAKER_BUY_VOLUME, d.at(last, CANDLE_TAKER_BUY_VOLUME) + qty);
      d.set(last, CANDLE_TAKER_BUY_QUOTE_VOLUME, d.at(last, CANDLE_TAKER_BUY_QUOTE_VOLUME) + quoteQty);
    }
  }

  /** Forgets the first `count` rows. */
  dropFront(count: number): void {
    if (count <= 0) return;
    this.numbers.dropFront(count);
    this.decimals.dropFront(count);
    this.count -= count;
  }

  private write(row: number, c: Candle): void {
    this.numbers.set(row, CANDLE_OPEN, c.openTime);
    this.numbers.set(row, CANDLE_FIRST_ID, c.firstId);
    this.numbers.set(row, CANDLE_LAST_ID, c.lastId);
    this.numbers.set(row, CANDLE_COUNT, c.count);
    this.decimals.set(row, CANDLE_OPEN_PRICE, c.open);
    this.decimals.set(row, CANDLE_HIGH, c.high);
    this.decimals.set(row, CANDLE_LOW, c.low);
    this.decimals.set(row, CANDLE_CLOSE, c.close);
    this.decimals.set(row, CANDLE_VOLUME, c.volume);
    this.decimals.set(row, CANDLE_QUOTE_VOLUME, c.quoteVolume);
    this.decimals.set(row, CANDLE_TAKER_BUY_VOLUME, c.takerBuyVolume);
    this.decimals.set(row, CANDLE_TAKER_BUY_QUOTE_VOLUME, c.takerBuyQuoteVolume);
  }
}
