// The start-up probe: reachability, the clock offset, the listed symbols and a reference price.
import { checksAt } from "../checks/index.js";
import { ConnectionError, UsageError } from "../core/errors.js";
import { type ContractModel, exampleOf, isSigned, methodOf } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { ok } from "../kit/answers.js";
import type { RunClock } from "../kit/context.js";
import {
  type Market,
  notTradingToProbe,
  pickSymbol,
  readExchangeInfo,
  referencePriceOf,
  takesOrders,
} from "../kit/market.js";
import type { Session } from "../session/session.js";

/** The example symbol of the spec's first operation that gives one. */
export function preferredSymbol(model: ContractModel): string | undefined {
  for (const operation of model.operations) {
    const symbol = operation.parameters.find((p) => p.name === "symbol" && typeof exampleOf(p) === "string");
    if (symbol) return exampleOf(symbol) as string;
  }
  return undefined;
}

/** ping, server_time, exchangeInfo and a ticker: reachability, clock offset, symbols and a price. */
export interface ProbeResult {
  market: Market;
  reference?: bigint | undefined;
  /** A market price of every trading symbol that has one, and of the non-trading ones probed. */
  references: Map<string, bigint>;
  /** The first read of the server's clock and what signing does with it. */
  clock?: RunClock | undefined;
}

export async function probe(session: Session, baseUrl: string): Promise<ProbeResult> {
  const { model } = session;
  const ping =
    model.operation("ping") ??
    model.operations.find(
      (o) => methodOf(o) === "GET" && o.authClass === "none" && !o.parameters.some((p) => p.required),
    );
  if (!ping) throw new UsageError("the spec has no operation to probe the server with");
  const first = await session.call({ op: ping, params: [] }, "probe: connectivity");
  if (first.error) throw new ConnectionError(`cannot reach ${baseUrl}: ${first.error.message}`);
  const response = first.response!;
  const where = `${methodOf(ping)} ${baseUrl}${ping.path}`;
  const absent = (status: number | undefined) => status === 404 || status === 405 || status === 501;
  if (absent(response.status)) {
    // A missing ping does not end the run (it is judged "not implemented"), unless nothing the
    // probe asks for exists: then the base URL is probably wrong.
    const others = model.operations.filter(
      (o) => o !== ping && methodOf(o) === "GET" && !isSigned(o) && !o.parameters.some((p) => p.required),
    );
    let anyServed = false;
    for (const other of others.slice(0, 2)) {
      const answer = await session.call({ op: other, params: [] }, "probe: is anything implemented");
      if (answer.response && !absent(answer.response.status)) anyServed = true;
    }
    if (!anyServed) {
      throw new ConnectionError(
        `${where} answered ${response.status}, and so did ${others
          .slice(0, 2)
          .map((o) => o.path)
          .join(" and ")}: is ${baseUrl} the base URL of the trading API?`,
      );
    }
  }
  if (!absent(response.status) && response.jsonError !== undefined) {
    const type = response.contentType || "no Content-Type";
    const excerpt = response.bodyText.slice(0, 80).replace(/\s+/g, " ");
    throw new ConnectionError(
      `${where} answered status ${response.status} with ${type} that is not JSON (${response.jsonError}${excerpt ? `: "${excerpt}"` : ""}); is ${baseUrl} the base URL of the trading API?`,
    );
  }

  // Every probe hook runs, whichever checks are on: the clock to sign with is decided here.
  let clock: RunClock | undefined;
  for (const check of checksAt("probe")) {
    const found = await check.hook.run(session);
    if (found?.clock) {
      clock = found.clock;
      session.adoptClock(clock.offsetMs);
    }
  }

  let market: Market = { symbols: [], weightLimit: undefined, rateLimits: [] };
  const info = model.operation("exchange_info");
  if (info) {
    const exchange = await session.call({ op: info, params: [] }, "probe: exchange rules");
    if (ok(exchange)) market = readExchangeInfo(exchange.response?.json);
    session.weightLimit = market.weightLimit;
    try {
      session.pacer.setLimits(market.rateLimits as never);
    } catch (error) {
      // A malformed announcement is the target's; the run paces by the answers' counters alone.
      session.rateLimitsNote = `exchangeInfo's rateLimits are not usable (${(error as Error).message})`;
    }
  }
  const symbol = pickSymbol(market, preferredSymbol(model));
  const references = await marketPrices(session, market);
  const reference = symbol ? references.get(symbol.symbol) : undefined;
  return { market, reference, references, clock };
}

/**
 * A market price of every trading symbol, and of those not trading the run sends an order to
 * (notTradingToProbe): the book tickers read once without a symbol, then, for
 * a symbol that read did not price, its own ticker (the best bid, the last price or the average).
 */
async function marketPrices(session: Session, market: Market): Promise<Map<string, bigint>> {
  const prices = new Map<string, bigint>();
  const trading = market.symbols.filter(takesOrders);
  const priced = [...trading.slice(0, MAX_SYMBOLS_PRICED), ...notTradingToProbe(market)];
  const all = session.model.operation("order_book_ticker");
  if (all && trading.length > 1 && !all.parameters.some((p) => p.required)) {
    const exchange = await session.call({ op: all, params: [] }, "probe: market prices");
    const items =
      ok(exchange) && Array.isArray(exchange.response?.json) ? (exchange.response.json as unknown[]) : [];
    for (const item of items) {
      const symbol =
        typeof item === "object" && item !== null ? (item as Record<string, unknown>).symbol : undefined;
      const price = referencePriceOf(item);
      if (typeof symbol === "string" && price !== undefined) prices.set(symbol, price);
    }
  }
  for (const rules of priced) {
    for (const id of ["order_book_ticker", "symbol_price_ticker", "current_average_price"]) {
      const ticker = session.model.operation(id);
      if (!ticker || prices.has(rules.symbol)) continue;
      const exchange = await session.call(
        { op: ticker, params: encodeParams(ticker, { symbol: rules.symbol }) },
        "probe: market price",
      );
      const price = ok(exchange) ? referencePriceOf(exchange.response?.json) : undefined;
      if (price !== undefined) prices.set(rules.symbol, price);
    }
  }
  return prices;
}

/** Symbols priced one by one at most, when the tickers without a symbol did not price them. */
const MAX_SYMBOLS_PRICED = 8;
