/**
 * The parameters the server reads beyond the spec, because the live API reads them and real
 * clients send them (the README's table of live-API extras lists each, with the live behaviour it
 * copies). Everything a request carries is accounted for here: a declared parameter goes to the
 * spec's validation, an extra is parsed and checked by the live API's rules, and anything else is
 * refused as the live API refuses it (-1104), so no sent parameter is ever silently ignored.
 */

import type { SelfTradePreventionMode, TickerType } from "../engine/index.js";
import {
  type ApiError,
  badCombination,
  illegalChars,
  invalidCancelRestrictions,
  invalidParamData,
  invalidTickerType,
  repeatedSymbol,
  unreadParams,
} from "../errors.js";
import type { ServerOperation } from "./api.js";
import { SYMBOLS_PATTERN } from "./validation.js";

/** What the extras of one request asked for, parsed. */
export interface LiveExtras {
  /** Ticker `symbols`: only these symbols, in this order. */
  symbols?: string[];
  /** 24-hour ticker `type`. */
  tickerType?: TickerType;
  strategyId?: number;
  strategyType?: number;
  selfTradePreventionMode?: SelfTradePreventionMode;
  cancelRestrictions?: "ONLY_NEW" | "ONLY_PARTIALLY_FILLED";
}

type Reader = (text: string, extras: LiveExtras) => void;

const TICKERS = ["order_book_ticker", "symbol_price_ticker", "ticker_price_change_statistics24hr"];
const SIGNED_ENVELOPE = ["timestamp", "signature", "recvWindow"];
const SYMBOL = /^[A-Z0-9-_.]{1,20}$/;
const LONG = /^[0-9]{1,18}$/;
const STP_MODES = ["NONE", "EXPIRE_TAKER", "EXPIRE_MAKER", "EXPIRE_BOTH", "DECREMENT", "TRANSFER"];

/** The extras each operation reads, by parameter name. */
const READERS: Readonly<Record<string, Readonly<Record<string, Reader>>>> = {
  ...Object.fromEntries(TICKERS.map((id) => [id, { symbols: readSymbols }])),
  ticker_price_change_statistics24hr: { symbols: readSymbols, type: readTickerType },
  new_order: {
    strategyId: (text, extras) => {
      extras.strategyId = long("strategyId", text);
    },
    strategyType: (text, extras) => {
      extras.strategyType = long("strategyType", text);
    },
    selfTradePreventionMode: (text, extras) => {
      if (!STP_MODES.includes(text)) throw invalidParamData("selfTradePreventionMode");
      extras.selfTradePreventionMode = text as SelfTradePreventionMode;
    },
  },
  cancel_order: {
    cancelRestrictions: (text, extras) => {
      if (text !== "ONLY_NEW" && text !== "ONLY_PARTIALLY_FILLED") {
        throw invalidCancelRestrictions();
      }
      extras.cancelRestrictions = text;
    },
  },
};

/**
 * Parameters the live API reads on these operations that this server does not implement. They
 * are refused, never ignored, since each would change the live API's answer.
 */
const NOT_IMPLEMENTED: Readonly<Record<string, readonly string[]>> = {
  exchange_info: ["permissions", "showPermissionSets", "symbolStatus"],
  order_book: ["symbolStatus"],
  ...Object.fromEntries(TICKERS.map((id) => [id, ["symbolStatus"]])),
  new_order: ["pegPriceType", "pegOffsetValue", "pegOffsetType"],
};

/** The names of an operation's extras (for the README table test and for weights). */
export function extraNames(operationId: string): string[] {
  return Object.keys(READERS[operationId] ?? {});
}

/**
 * Splits the received parameters into the declared ones (for the spec's validation) and the
 * extras (parsed here). The signing envelope is left to authentication. A parameter that is
 * neither is refused: -1104 with the live API's text, which counts the parameters.
 */
export function splitExtras(
  operation: ServerOperation,
  values: ReadonlyMap<string, string>,
  sentCount: number,
): { declared: Map<string, string>; extras: LiveExtras } {
  const declared = new Map<string, string>();
  const extras: LiveExtras = {};
  const roles = rolesOf(operation);
  let unread: string[] | undefined;
  for (const [name, value] of values) {
    const role = roles.get(name);
    if (role === DECLARED) {
      declared.set(name, value);
    } else if (role === undefined) {
      unread ??= [];
      unread.push(name);
    } else if (role !== ENVELOPE_ONLY) {
      role(value, extras);
    }
  }
  if (operation.operationId === "order_book") capDepthLimit(declared);
  if (extras.symbols !== undefined && values.has("symbol")) throw badCombination();
  if (unread !== undefined) throw unreadError(operation, unread, sentCount);
  return { declared, extras };
}

/** A parameter validated by the spec (declared, or the signing envelope but recvWindow). */
const DECLARED = 0;
/** recvWindow of a signed operation: read by authentication alone. */
const ENVELOPE_ONLY = 1;
/** What a request's parameter is to its operation: declared, envelope, or an extra's reader. */
type Role = typeof DECLARED | typeof ENVELOPE_ONLY | Reader;

/** Each operation's roles by parameter name, worked out on its first request (one lookup per parameter). */
const rolesByOperation = new WeakMap<ServerOperation, ReadonlyMap<string, Role>>();

function rolesOf(operation: ServerOperation): ReadonlyMap<string, Role> {
  let roles = rolesByOperation.get(operation);
  if (roles === undefined) {
    const made = new Map<string, Role>();
    const readers = READERS[operation.operationId] ?? {};
    // The same precedence as reading each name in turn: declared, then envelope, then extras.
    for (const [name, reader] of Object.entries(readers)) made.set(name, reader);
    if (operation.signed) {
      for (const name of SIGNED_ENVELOPE) made.set(name, name === "recvWindow" ? ENVELOPE_ONLY : DECLARED);
    }
    // A header parameter is read from the headers (headerParams), never from the query or body.
    for (const parameter of operation.parameters) {
      if (parameter.in === "header") continue;
      if (!(operation.signed && parameter.name === "recvWindow")) made.set(parameter.name, DECLARED);
    }
    roles = made;
    rolesByOperation.set(operation, roles);
  }
  return roles;
}

function unreadError(operation: ServerOperation, unread: string[], sentCount: number): ApiError {
  const known = unread.find((name) => NOT_IMPLEMENTED[operation.operationId]?.includes(name));
  return unreadParams(sentCount - unread.length, sentCount, known);
}

/** The live API truncates a depth `limit` above 5000 to 5000 instead of refusing it. */
const MAX_DEPTH_LIMIT = 5000;

function capDepthLimit(declared: Map<string, string>): void {
  const limit = declared.get("limit");
  if (limit !== undefined && /^[0-9]{1,20}$/.test(limit) && Number(limit) > MAX_DEPTH_LIMIT) {
    declared.set("limit", String(MAX_DEPTH_LIMIT));
  }
}

/** Ticker `symbols`: one JSON array of symbols, as exchange_info takes it (same errors). */
function readSymbols(text: string, extras: LiveExtras): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw illegalChars("symbols", SYMBOLS_PATTERN);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length === 0 ||
    !parsed.every((s) => typeof s === "string" && SYMBOL.test(s))
  ) {
    throw illegalChars("symbols", SYMBOLS_PATTERN);
  }
  if (new Set(parsed).size !== parsed.length) {
    throw repeatedSymbol();
  }
  extras.symbols = parsed as string[];
}

function readTickerType(text: string, extras: LiveExtras): void {
  if (text !== "FULL" && text !== "MINI") throw invalidTickerType();
  extras.tickerType = text;
}

function long(name: string, text: string): number {
  if (!LONG.test(text)) throw illegalChars(name, "^[0-9]{1,18}$");
  return Number(text);
}

/**
 * The weight of a request that uses a weighed extra, as the live API charges it, or undefined when
 * the request uses none (its weight is then the spec's `x-weight`). Ticker `symbols`: 4; on the
 * 24-hour ticker by the number of symbols, 2 up to 20, 40 up to 100, 80 above.
 */
export function extraWeight(
  operationId: string,
  values: ReadonlyMap<string, string> | undefined,
): number | undefined {
  const symbols = values?.get("symbols");
  if (symbols === undefined || !TICKERS.includes(operationId)) return undefined;
  if (operationId !== "ticker_price_change_statistics24hr") return 4;
  const count = symbolsCount(symbols);
  if (count <= 20) return 2;
  return count <= 100 ? 40 : 80;
}

/** The number of symbols a `symbols` value lists; 1 when unreadable. */
function symbolsCount(text: string): number {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.length : 1;
  } catch {
    return 1;
  }
}

/**
 * Why the server accepts a value the spec refuses for a declared parameter (a live-API extra that
 * widens the spec), or undefined when it does not. The contract tester reads this so that it does
 * not count the embedded server's documented extras as violations.
 */
export function specWidening(operationId: string, parameter: string, text: string): string | undefined {
  if (parameter === "recvWindow" && operationId === "new_order" && /^[0-9]{1,20}\.[0-9]{1,3}$/.test(text)) {
    const value = Number(text);
    if (value > 0 && value <= 60000) return "recvWindow with up to three decimals, as the live API takes it";
  }
  if (
    parameter === "limit" &&
    operationId === "order_book" &&
    /^[0-9]{1,20}$/.test(text) &&
    Number(text) > MAX_DEPTH_LIMIT
  ) {
    return "a depth limit above 5000 is capped at 5000, as the live API does";
  }
  return undefined;
}
