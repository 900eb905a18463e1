/**
 * A state file is data, and its rows are read as the engine assumes them: whole numbers in their
 * ranges where the engine counts, exact decimals where it computes (quantities and balances not
 * below zero), texts of the lengths and characters the API allows, one of the values the engine
 * knows where it switches on one. SQLite stores any value in any column (a text in an INTEGER
 * column stays a text), so each value read is checked as it is turned into an engine value:
 * every row of the live state at start-up, and each row of the history as a request reads it
 * (the checks cost a comparison or two per value; decimals are parsed anyway). A value that fails
 * stops the read with a DamagedRow naming the table, the row and the column.
 */
import { decimal as dec, type SymbolConfig } from "../engine/index.js";
import { compileRules } from "../engine/symbols.js";
import { ORDER_TYPES } from "../engine/types.js";

/** A row the engine cannot take: `message` names the table, the row and the column. */
export class DamagedRow extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DamagedRow";
  }
}

/** The largest id of a symbol's orders, trades and aggregate trades (see rows.ts ID_SPAN). */
const MAX_ID = 2 ** 40;
/** Client order ids, account ids and assets: the lengths and characters the API takes. */
export const CLIENT_ORDER_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/;
const ACCOUNT_ID = /^[\x21-\x7e]{1,64}$/;
const ASSET = /^[A-Z0-9]{1,20}$/;
const SYMBOL = /^[A-Z0-9-_.]{1,20}$/;
/** Times: milliseconds from 1970 to the year 2286 (13 digits), as the engine stamps them. */
const MAX_TIME = 9_999_999_999_999;

/** The columns of one row, each read as the engine takes it or refused naming it. */
export class Columns {
  constructor(
    private readonly row: Record<string, unknown>,
    /** "table orders_0, order 12": where the row is. */
    private readonly where: () => string,
  ) {}

  /** A whole number from `min` to `max`. */
  whole(column: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.row[column];
    if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return value;
    return this.refuse(column, `a whole number from ${min} to ${max}`);
  }

  id(column: string): number {
    return this.whole(column, 0, MAX_ID);
  }

  time(column: string): number {
    return this.whole(column, 0, MAX_TIME);
  }

  /** A time, or -1 (an order that is not working yet). */
  timeOrNone(column: string): number {
    return this.row[column] === -1 ? -1 : this.time(column);
  }

  optionalWhole(column: string): number | undefined {
    return this.row[column] === null ? undefined : this.whole(column, Number.MIN_SAFE_INTEGER);
  }

  /** 0 or 1. */
  flag(column: string): boolean {
    return this.whole(column, 0, 1) === 1;
  }

  /** An exact decimal (as rows.ts writes them), at least `min` (null: any sign). */
  decimal(column: string, min: dec.Decimal | null = 0n): dec.Decimal {
    const value = this.row[column];
    if (typeof value === "string" && value.length <= 42) {
      let parsed: dec.Decimal | undefined;
      try {
        parsed = dec.fromPlain(value);
      } catch {
        parsed = undefined;
      }
      if (parsed !== undefined && (min === null || parsed >= min)) return parsed;
    }
    return this.refuse(column, min === null ? "a decimal" : `a decimal of at least ${dec.toPlain(min)}`);
  }

  text(column: string, pattern: RegExp, what: string): string {
    const value = this.row[column];
    if (typeof value === "string" && pattern.test(value)) return value;
    return this.refuse(column, what);
  }

  oneOf<T extends string>(column: string, values: readonly T[]): T {
    const value = this.row[column];
    if (typeof value === "string" && (values as readonly string[]).includes(value)) return value as T;
    return this.refuse(column, `one of ${values.join(", ")}`);
  }

  clientOrderId(column: string): string {
    return this.text(
      column,
      CLIENT_ORDER_ID,
      "a client order id (1 to 36 of A-Z, a-z, 0-9, '.', ':', '/', '_', '-')",
    );
  }

  account(column: string): string {
    return this.text(column, ACCOUNT_ID, "an account id (1 to 64 printable characters)");
  }

  asset(column: string): string {
    return this.text(column, ASSET, "an asset (1 to 20 of A-Z, 0-9)");
  }

  symbol(column: string): string {
    return this.text(column, SYMBOL, "a symbol (1 to 20 of A-Z, 0-9, '-', '_', '.')");
  }

  /** The column's value, as the refusal quotes it. */
  refuse(column: string, expected: string): never {
    throw new DamagedRow(
      `${this.where()}: ${column} holds ${quote(this.row[column])}, where the engine takes ${expected}`,
    );
  }
}

/** A value as a message quotes it: its type, and its start when long. */
function quote(value: unknown): string {
  if (typeof value === "string") {
    const shown =
      value.length > 40
        ? `${JSON.stringify(value.slice(0, 40))}… (${value.length} characters)`
        : JSON.stringify(value);
    return `the text ${shown}`;
  }
  if (value instanceof Uint8Array) return `a blob of ${value.length} bytes`;
  if (value === null) return "NULL";
  return `the number ${String(value)}`;
}

/**
 * A symbol's configuration as this server writes it (the engine's SymbolConfig as JSON): every
 * field of the built-in template, of its type, and filters the engine compiles.
 */
export function checkedSymbolConfig(text: unknown, symbol: string, where: () => string): SymbolConfig {
  const refuse = (what: string): never => {
    throw new DamagedRow(`${where()}: config ${what}`);
  };
  if (typeof text !== "string" || text.length > 65_536) return refuse("is not a configuration's JSON text");
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    return refuse("is not JSON");
  }
  if (!isObject(config)) return refuse("is not a JSON object");
  for (const [key, kind] of Object.entries(CONFIG_FIELDS)) {
    const value = config[key];
    const ok = kind === "array" ? Array.isArray(value) : typeof value === kind;
    if (!ok) refuse(`has ${key} ${JSON.stringify(value)?.slice(0, 60)}, where the engine takes a ${kind}`);
  }
  const c = config as unknown as SymbolConfig;
  if (c.symbol !== symbol) refuse(`names the symbol ${JSON.stringify(c.symbol)}, not ${symbol}`);
  if (!ASSET.test(c.baseAsset) || !ASSET.test(c.quoteAsset) || c.baseAsset === c.quoteAsset)
    refuse("has assets that are not two different assets of 1 to 20 of A-Z, 0-9");
  if (dec.tryParse(c.referencePrice) === undefined) refuse("has a referencePrice that is not a decimal");
  if (!c.orderTypes.every((type) => (ORDER_TYPES as readonly string[]).includes(type)))
    refuse(`has orderTypes other than ${ORDER_TYPES.join(", ")}`);
  if (!c.filters.every((filter) => isObject(filter) && typeof filter.filterType === "string"))
    refuse("has filters that are not objects with a filterType");
  try {
    compileRules(c);
  } catch (error) {
    refuse(`has filters the engine cannot use (${(error as Error).message})`);
  }
  return c;
}

/** The fields of a symbol's configuration and their JSON types (engine/symbols.ts SymbolConfig). */
const CONFIG_FIELDS: Record<string, "string" | "number" | "boolean" | "array"> = {
  symbol: "string",
  status: "string",
  baseAsset: "string",
  baseAssetPrecision: "number",
  quoteAsset: "string",
  quotePrecision: "number",
  quoteAssetPrecision: "number",
  baseCommissionPrecision: "number",
  quoteCommissionPrecision: "number",
  orderTypes: "array",
  icebergAllowed: "boolean",
  ocoAllowed: "boolean",
  otoAllowed: "boolean",
  opoAllowed: "boolean",
  quoteOrderQtyMarketAllowed: "boolean",
  allowTrailingStop: "boolean",
  cancelReplaceAllowed: "boolean",
  amendAllowed: "boolean",
  pegInstructionsAllowed: "boolean",
  isSpotTradingAllowed: "boolean",
  isMarginTradingAllowed: "boolean",
  filters: "array",
  permissions: "array",
  permissionSets: "array",
  defaultSelfTradePreventionMode: "string",
  allowedSelfTradePreventionModes: "array",
  referencePrice: "string",
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
