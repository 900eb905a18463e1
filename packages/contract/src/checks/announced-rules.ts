/**
 * announced_rules: what exchange_info announces for the run's symbol is what the target does.
 * Every order type it lists is accepted with valid parameters (from x-order-type-rules), and every
 * type of the spec it does not list is refused (on a symbol that does not list it); every filter
 * bound it announces is probed on both sides of its exact edge: at the bound, the order is not
 * refused by that filter; one step past it, it is refused with the filter-failure code x-refusals
 * names. Orders rest far from the market and are cancelled at once; a MARKET order of the smallest
 * size is offset by another. The self-trade prevention modes it allows (allowedSelfTradePreventionModes)
 * are the only ones new_order takes there: a far order with another mode of the spec's enum is
 * refused, one with an allowed mode taken. A type's exactlyOneOf group sent whole is refused. A
 * trailing stop taken at a TRAILING_DELTA bound, its stopPrice far from the market, is not
 * active: its trailingTime is -1; one placed without a stopPrice, on a symbol that had traded, is
 * active at once: its trailingTime is a time.
 */

import { isObject, type JsonObject, type OrderTypeRule, resolveRef } from "@marketapi/spec/model";
import {
  ceilToStep,
  type Dec,
  div,
  floorToStep,
  formatDec,
  fromRatio,
  maxDec,
  mul,
  tryParseDec,
  ZERO,
} from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, describeAnswer, errorCode, isRateLimited, ok } from "../kit/answers.js";
import { expectRefusal, op, type RunContext, tradedRules, whyNoTrading } from "../kit/context.js";
import type { SymbolRules } from "../kit/market.js";
import {
  isFarFrom,
  NOTIONAL_MARGIN,
  notionalWithMargin,
  quantityFor,
  smallestMarketQuantity,
  smallestQuantity,
  takesOrders,
} from "../kit/market.js";
import { type ExplorationView, explorationView, quoteBudget, specOrderTypes } from "../kit/market-view.js";
import { inactiveTrailingProblem, unanchoredTrailingProblem } from "../kit/order-answers.js";
import { bestPrices, placeOrder } from "../kit/order-placing.js";
import { farShape, triggersOnRise } from "../kit/order-shapes.js";
import { refusalOf } from "../kit/refusal-codes.js";
import { newestTradeId } from "../kit/relations-support.js";
import { plausibleWith, type Values } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "announced_rules";

export const announcedRules: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "announced",
  description:
    "every order type exchange_info lists is accepted and every other refused; each filter bound it announces holds at its exact edge on both sides",
  covers: ["x-refusals"],
  hooks: [{ phase: "trading-behaviour", run: announcedRulesPhase }],
  appliesTo: (operation) => operation.orderTypeRules !== undefined,
  notApplicable: "places no orders",
  seenToCatch: [
    "max-price-bound-exclusive",
    "max-qty-unenforced",
    "min-notional-bound-exclusive",
    "iceberg-parts-off-by-one",
    "trailing-delta-max-unenforced",
    "exchange-info-omits-a-type-it-accepts",
    "listed-type-refused",
    "filter-failure-as-rejected",
    "stop-limit-without-its-stop-accepted",
    "third-symbol-max-qty-unenforced",
    "market-lot-size-unenforced-on-ethbtc",
    "iceberg-not-allowed-accepted-on-ethusdt",
    "quote-market-not-allowed-accepted-on-ethusdt",
    "market-time-in-force-dropped",
    "take-profit-trailing-delta-unbounded",
    "trailing-time-set-at-placement",
    "market-both-quantities-takes-quantity",
    "stp-mode-not-allowed-placed-as-none",
  ],
};

/** One side of a filter's edge: an order at the bound (not refused by it) or one step past (refused). */
interface EdgeProbe {
  what: string;
  values: Values;
  /** true: at the bound, the filter must let it through; false: past it, the filter refuses it. */
  within: boolean;
  /** What the answer of a probe taken shows wrong of the order (undefined: right). */
  answered?: (body: Record<string, unknown>) => string | undefined;
  /** `answered` holds only where the symbol had traded before the probe was sent. */
  afterATrade?: boolean;
}

type Edge = { probes: EdgeProbe[] } | { unobservable: string };

const limit = (side: "BUY" | "SELL", price: Dec, quantity: Dec, extra: Values = {}): Values => ({
  side,
  type: "LIMIT",
  timeInForce: "GTC",
  price: formatDec(price),
  quantity: formatDec(quantity),
  ...extra,
});

function priceEdges(view: ExplorationView): Edge {
  const { rules, reference } = view;
  const probes: EdgeProbe[] = [];
  const margin = notionalWithMargin(rules);
  if (rules.minPrice > ZERO && rules.minPrice < mul(reference, fromRatio(1, 2))) {
    const quantity = quantityFor(rules, rules.minPrice, margin);
    if (rules.maxQty === ZERO || quantity <= rules.maxQty) {
      probes.push({
        what: `a BUY at minPrice ${formatDec(rules.minPrice)}`,
        values: limit("BUY", rules.minPrice, quantity),
        within: true,
      });
      const below = rules.minPrice - rules.tick;
      if (below > ZERO)
        probes.push({
          what: `a BUY at ${formatDec(below)}, one tick below minPrice`,
          values: limit("BUY", below, quantity),
          within: false,
        });
    }
  }
  if (rules.maxPrice > ZERO && rules.maxPrice > mul(reference, fromRatio(2, 1))) {
    const quantity = quantityFor(rules, rules.maxPrice, margin);
    const notionalOk =
      rules.maxNotional === ZERO || mul(quantity, rules.maxPrice + rules.tick) <= rules.maxNotional;
    if (notionalOk) {
      probes.push({
        what: `a SELL at maxPrice ${formatDec(rules.maxPrice)}`,
        values: limit("SELL", rules.maxPrice, quantity),
        within: true,
      });
      probes.push({
        what: `a SELL one tick above maxPrice`,
        values: limit("SELL", rules.maxPrice + rules.tick, quantity),
        within: false,
      });
    }
  }
  return probes.length > 0
    ? { probes }
    : { unobservable: "PRICE_FILTER: no bound far enough from the market to rest at" };
}

function lotEdges(view: ExplorationView): Edge {
  const { rules, reference, far } = view;
  const probes: EdgeProbe[] = [];
  const margin = notionalWithMargin(rules);
  // minQty rests as a SELL priced high enough for the minimum notional.
  const high =
    rules.minQty > ZERO && margin > ZERO ? ceilToStep(div(margin, rules.minQty), rules.tick) : far.SELL;
  if (
    rules.minQty > ZERO &&
    high !== undefined &&
    isFarFrom(reference, high, "SELL") &&
    (rules.maxPrice === ZERO || high <= rules.maxPrice)
  ) {
    probes.push({
      what: `a SELL of minQty ${formatDec(rules.minQty)}`,
      values: limit("SELL", high, rules.minQty),
      within: true,
    });
    if (rules.minQty - rules.step > ZERO)
      probes.push({
        what: `a SELL one step below minQty`,
        values: limit("SELL", high, rules.minQty - rules.step),
        within: false,
      });
  }
  // maxQty rests as a BUY priced low enough for the maximum notional, high enough for the minimum.
  if (rules.maxQty > ZERO) {
    const low = ceilToStep(
      maxDec(rules.minPrice, rules.tick, margin > ZERO ? div(margin, rules.maxQty) : ZERO),
      rules.tick,
    );
    const fits = rules.maxNotional === ZERO || mul(low, rules.maxQty + rules.step) <= rules.maxNotional;
    if (fits && low < mul(reference, fromRatio(1, 2))) {
      probes.push({
        what: `a BUY of maxQty ${formatDec(rules.maxQty)} at ${formatDec(low)}`,
        values: limit("BUY", low, rules.maxQty),
        within: true,
      });
      probes.push({
        what: `a BUY one step above maxQty`,
        values: limit("BUY", low, rules.maxQty + rules.step),
        within: false,
      });
    }
  }
  return probes.length > 0 ? { probes } : { unobservable: "LOT_SIZE: no bound an order can rest at" };
}

/**
 * A BUY far below the market whose notional is exactly the minimum: a quantity on the step
 * whose price minNotional / quantity lies on the tick; one step less falls below it.
 */
function notionalEdges(view: ExplorationView): Edge {
  const { rules, far } = view;
  if (rules.minNotional <= ZERO || far.BUY === undefined)
    return { unobservable: "NOTIONAL: no minimum notional" };
  const start = ceilToStep(div(rules.minNotional, far.BUY), rules.step);
  for (let k = 0n; k < 2000n; k += 1n) {
    const quantity = start + k * rules.step;
    const price = div(rules.minNotional, quantity);
    if (mul(price, quantity) !== rules.minNotional || floorToStep(price, rules.tick) !== price) continue;
    if (price < rules.minPrice || price >= mul(view.reference, fromRatio(1, 2))) break;
    return {
      probes: [
        {
          what: `a BUY of notional exactly minNotional ${formatDec(rules.minNotional)} (${formatDec(quantity)} @ ${formatDec(price)})`,
          values: limit("BUY", price, quantity),
          within: true,
        },
        {
          what: `a BUY one step below the minimum notional`,
          values: limit("BUY", price, quantity - rules.step),
          within: false,
        },
      ],
    };
  }
  return {
    unobservable: "NOTIONAL: no quantity on the step whose exact minimum-notional price lies on the tick",
  };
}

/** ICEBERG_PARTS: a far BUY in exactly `limit` parts of its icebergQty, and one in one part more. */
function icebergEdges(view: ExplorationView, rules: Record<string, unknown>): Edge {
  const parts = view.icebergParts;
  const price = view.far.BUY;
  if (parts === undefined || !view.icebergAllowed || price === undefined || !("LIMIT" in rules))
    return { unobservable: "ICEBERG_PARTS: not announced, or icebergs not allowed" };
  const iceberg = smallestQuantity(view.rules, price);
  const whole = iceberg * BigInt(parts);
  return {
    probes: [
      {
        what: `an iceberg of exactly ${parts} parts`,
        values: limit("BUY", price, whole, { icebergQty: formatDec(iceberg) }),
        within: true,
      },
      {
        what: `an iceberg of ${parts + 1} parts`,
        values: limit("BUY", price, whole + view.rules.step, { icebergQty: formatDec(iceberg) }),
        within: false,
      },
    ],
  };
}

/** TRAILING_DELTA: a trailing STOP_LOSS SELL (stop far below) at each bound, and one past it. */
function trailingEdges(view: ExplorationView): Edge {
  const bounds = view.rules.trailingDelta;
  if (!bounds || !view.rules.trailingStopAllowed)
    return { unobservable: "TRAILING_DELTA: not announced, or trailing stops not allowed" };
  // Each trailing type a SELL can rest as, its stop where it does not fire: a stop-loss below the
  // market, a take-profit above it; each has the bounds of the way it triggers.
  const probes = TRAILING_TYPES.filter((type) => view.types.includes(type)).flatMap((type) =>
    trailingProbes(view, bounds, type),
  );
  return probes.length > 0
    ? { probes }
    : { unobservable: "TRAILING_DELTA: no trailing type listed, or no far price, or bounds not integers" };
}

function withoutStopPrice(values: Values): Values {
  const { stopPrice: _anchor, ...rest } = values;
  return rest;
}

/** The market (stop) order types a trailing delta can drive, as a SELL. */
const TRAILING_TYPES = ["STOP_LOSS", "TAKE_PROFIT"] as const;

function trailingProbes(
  view: ExplorationView,
  bounds: NonNullable<ExplorationView["rules"]["trailingDelta"]>,
  type: (typeof TRAILING_TYPES)[number],
): EdgeProbe[] {
  const rise = triggersOnRise(type, "SELL");
  const stop = rise ? view.far.SELL : view.far.BUY;
  const way = rise ? "Above" : "Below";
  const low = rise ? bounds.minAbove : bounds.minBelow;
  const high = rise ? bounds.maxAbove : bounds.maxBelow;
  if (stop === undefined || low === undefined || high === undefined) return [];
  const quantity = maxDec(smallestQuantity(view.rules, view.reference), view.rules.minQty);
  const order = (delta: number): Values => ({
    side: "SELL",
    type,
    quantity: formatDec(quantity),
    stopPrice: formatDec(stop),
    trailingDelta: String(delta),
  });
  const name = `a trailing ${type} SELL`;
  const probes: EdgeProbe[] = [
    // Its stop far from the market, the trailing stop is not active: trailingTime -1.
    {
      what: `${name} at minTrailing${way}Delta ${low}`,
      values: order(low),
      within: true,
      answered: inactiveTrailingProblem,
    },
    {
      what: `${name} at maxTrailing${way}Delta ${high}`,
      values: order(high),
      within: true,
      answered: inactiveTrailingProblem,
    },
    // Without a stopPrice it tracks the last price at once: trailingTime is a time.
    {
      what: `${name} at maxTrailing${way}Delta ${high}, without a stopPrice`,
      values: withoutStopPrice(order(high)),
      within: true,
      answered: unanchoredTrailingProblem,
      afterATrade: true,
    },
    { what: `${name} at ${high + 1}, above maxTrailing${way}Delta`, values: order(high + 1), within: false },
  ];
  if (low > 1)
    probes.push({
      what: `${name} at ${low - 1}, below minTrailing${way}Delta`,
      values: order(low - 1),
      within: false,
    });
  return probes;
}

/** MAX_NUM_ALGO_ORDERS: stops up to the cap are accepted, the next refused (when the cap is small). */
const LARGEST_CAP_PROBED = 10;

export async function announcedRulesPhase(ctx: RunContext): Promise<void> {
  const newOrder = op(ctx, "new_order");
  if (!newOrder || !ctx.session.recorder.enabled(CHECK)) return;
  const skip = (reason: string) => ctx.session.recorder.skip(CHECK, newOrder.operationId, reason);
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return skip(noTrading);
  if (!ctx.rules) return skip("exchangeInfo lists no symbol to trade");
  const specTypes = specOrderTypes(newOrder);
  const traded = tradedRules(ctx);
  for (const symbol of traded) await announcedOn(ctx, newOrder, symbol, specTypes);
}

/** What exchange_info announces for one symbol the run trades, each rule probed on it. */
async function announcedOn(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: SymbolRules,
  specTypes: readonly string[],
): Promise<void> {
  const rules = newOrder.orderTypeRules ?? {};
  const note = (why: string) =>
    ctx.session.recorder.note(CHECK, newOrder.operationId, `${symbol.symbol}: not observable: ${why}`);
  const prices = await bestPrices(ctx, `announced rules: best prices of ${symbol.symbol}`, symbol.symbol);
  if (!prices) return note(`the order book of ${symbol.symbol} has an empty side`);
  const view = explorationView(symbol, (prices.bid + prices.ask) / 2n, specTypes);
  if (!view) return note(`${symbol.symbol} announces no tick size or step size`);
  await listedTypes(ctx, newOrder, view, rules, note);
  await unlistedTypes(ctx, newOrder, view, rules, [...specTypes], note);
  for (const edge of [
    priceEdges(view),
    lotEdges(view),
    notionalEdges(view),
    icebergEdges(view, rules),
    trailingEdges(view),
  ]) {
    if ("unobservable" in edge) note(edge.unobservable);
    else for (const probe of edge.probes) await edgeProbe(ctx, newOrder, view, probe);
  }
  await algoCap(ctx, newOrder, view, rules, note);
  await belowMarketLot(ctx, newOrder, view, note);
  await flagsOff(ctx, newOrder, view, rules);
  await selfTradePreventionModes(ctx, newOrder, view, rules, note);
}

/** new_order's self-trade prevention parameter, and the exchange_info field of the modes a symbol allows. */
const STP_PARAMETER = "selfTradePreventionMode";
const STP_ALLOWED = "allowedSelfTradePreventionModes";

/**
 * The modes of `specModes` a symbol that allows `allowed` must refuse, and the allowed one to
 * place: another than the symbol's default where it allows one (it shows the mode is read), else
 * the default; none where it allows no mode of the spec. Pure.
 */
export function stpProbes(
  specModes: readonly string[],
  allowed: readonly string[],
  defaultMode: string | undefined,
): { refused: string[]; taken: string | undefined } {
  const allowedOfSpec = specModes.filter((mode) => allowed.includes(mode));
  return {
    refused: specModes.filter((mode) => !allowed.includes(mode)),
    taken: allowedOfSpec.find((mode) => mode !== defaultMode) ?? allowedOfSpec[0],
  };
}

/**
 * The enum of the schema at `path` below `schema` (property names, `items` for an array's items),
 * each $ref followed; none where the path or the enum is not there. Pure.
 */
export function enumAlong(document: JsonObject, schema: unknown, path: readonly string[]): string[] {
  let node = schema;
  for (const step of path) {
    if (!isObject(node)) return [];
    const here = resolveRef(document, node, "#");
    node = step === "items" ? here.items : isObject(here.properties) ? here.properties[step] : undefined;
  }
  if (!isObject(node)) return [];
  const last = resolveRef(document, node, "#");
  return Array.isArray(last.enum) ? last.enum.map(String) : [];
}

/** The self-trade prevention modes of the spec: the enum of what exchange_info's symbols allow. */
function specStpModes(ctx: RunContext): string[] {
  const schema = op(ctx, "exchange_info")?.responses.find((r) => r.status === "200")?.schema;
  return enumAlong(ctx.session.model.document, schema, ["symbols", "items", STP_ALLOWED, "items"]);
}

/**
 * A far LIMIT order with a mode the symbol allows is taken (and cancelled); then one with each mode
 * of the spec it does not allow is refused. x-refusals names no rule for it, so any refusal with the
 * error body passes; one taken is cancelled. A target that refuses the allowed mode too does not
 * take the parameter (the spec does not declare it on new_order, the live API does): skipped.
 */
async function selfTradePreventionModes(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  rules: NonNullable<ContractOperation["orderTypeRules"]>,
  note: (why: string) => void,
): Promise<void> {
  const announced = view.rules.info[STP_ALLOWED];
  if (!Array.isArray(announced)) return note(`${STP_ALLOWED}: not announced`);
  const allowed = `${STP_ALLOWED} [${announced.join(", ")}]`;
  const specModes = specStpModes(ctx);
  if (specModes.length === 0)
    return note(`${STP_PARAMETER}: the spec states no modes (${STP_ALLOWED}'s enum)`);
  const { refused, taken } = stpProbes(
    specModes,
    announced.map(String),
    view.rules.defaultSelfTradePreventionMode,
  );
  if (taken === undefined) return note(`${STP_PARAMETER}: ${allowed} holds no mode of the spec`);
  const shape = view.types.includes("LIMIT") ? farShape(view, rules, "LIMIT", "BUY", 1, false) : undefined;
  if (!shape) return note(`${STP_PARAMETER}: no far LIMIT order to carry it`);
  if (!(await allowedModeTaken(ctx, newOrder, view.symbol, shape.values, taken))) return;
  for (const mode of refused) {
    const what = `a ${shape.label} on ${view.symbol} with ${STP_PARAMETER}=${mode}, which its ${allowed} leaves out`;
    await mustRefuse(ctx, newOrder, view.symbol, { ...shape.values, [STP_PARAMETER]: mode }, what);
  }
}

/** The far order with an allowed mode: taken (a pass), cancelled; whether the target takes the parameter. */
async function allowedModeTaken(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  values: Values,
  mode: string,
): Promise<boolean> {
  const what = `${STP_PARAMETER}=${mode}, which ${symbol}'s ${STP_ALLOWED} lists`;
  const placed = await send(ctx, newOrder, symbol, { ...values, [STP_PARAMETER]: mode }, what);
  await cancelPlaced(ctx, symbol, placed.clientOrderId);
  if (ok(placed.exchange)) {
    ctx.session.pass(CHECK, placed.exchange);
    return true;
  }
  const skip = (reason: string) => ctx.session.recorder.skip(CHECK, newOrder.operationId, reason);
  const refusal = `a far order with ${what} was refused (${describeAnswer(placed.exchange)})`;
  if (isRateLimited(placed.exchange)) skip(`rate limited during a far order with ${what}`);
  else if (newOrder.parameters.some((p) => p.name === STP_PARAMETER))
    ctx.session.fail(CHECK, placed.exchange, `${refusal}; expected it to be taken`);
  else
    skip(
      `${refusal}: the target does not take ${STP_PARAMETER}, which the spec does not declare on new_order, so the modes it leaves out were not sent`,
    );
  return false;
}

/**
 * A MARKET order one step below MARKET_LOT_SIZE's minQty is refused by that filter, where LOT_SIZE
 * and the notional filters would take it (a smaller order's refusal would prove nothing). One taken
 * by mistake is offset.
 */
async function belowMarketLot(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  note: (why: string) => void,
): Promise<void> {
  const { rules } = view;
  if (rules.marketMinQty <= ZERO || !view.types.includes("MARKET")) return;
  const below = rules.marketMinQty - (rules.marketStep > ZERO ? rules.marketStep : rules.step);
  const takenByTheOthers =
    below >= rules.minQty &&
    below === ceilToStep(below, rules.step) &&
    mul(below, view.reference) >= mul(notionalWithMargin(rules), NOTIONAL_MARGIN);
  if (!takenByTheOthers)
    return note(
      `MARKET_LOT_SIZE minQty ${formatDec(rules.marketMinQty)}: one step below it, LOT_SIZE or the notional filters refuse as well`,
    );
  const what = `a MARKET BUY of ${formatDec(below)}, one step below MARKET_LOT_SIZE minQty ${formatDec(rules.marketMinQty)}`;
  const filter = refusalOf(ctx, "filter-failure", newOrder.operationId);
  await mustRefuse(
    ctx,
    newOrder,
    view.symbol,
    { side: "BUY", type: "MARKET", quantity: formatDec(below) },
    what,
    filter,
  );
}

/**
 * An order that must be refused, with `refusal`'s status and code where the spec names them; one
 * taken by mistake is undone: a MARKET BUY offset, any other cancelled.
 */
async function mustRefuse(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  values: Values,
  what: string,
  refusal: ReturnType<typeof refusalOf> = {},
): Promise<void> {
  const placed = await send(ctx, newOrder, symbol, values, what);
  expectRefusal(ctx, CHECK, placed.exchange, { what, ...refusal });
  if (values.type === "MARKET" && values.side === "BUY") await offsetBuy(ctx, newOrder, symbol, placed.body);
  else await cancelPlaced(ctx, symbol, placed.clientOrderId);
}

/** Sells, at the market, what a MARKET BUY probe (its answer's `body`) executed. */
async function offsetBuy(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  body: Record<string, unknown> | undefined,
): Promise<void> {
  const executed = tryParseDec(body?.executedQty) ?? ZERO;
  if (executed > ZERO)
    await send(
      ctx,
      newOrder,
      symbol,
      { side: "SELL", type: "MARKET", quantity: formatDec(executed) },
      "MARKET SELL offsetting the probe",
    );
}

/**
 * What a symbol's flags say it does not take is refused: an iceberg where `icebergAllowed` is
 * false, a MARKET order by quote budget where `quoteOrderQtyMarketAllowed` is false. Any refusal
 * with the error schema passes (the live API's words vary); one taken is cancelled or offset.
 */
async function flagsOff(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  rules: NonNullable<ContractOperation["orderTypeRules"]>,
): Promise<void> {
  if (!view.icebergAllowed) {
    const shape = farShape(view, rules, "LIMIT", "BUY", 2, true);
    if (shape) {
      const what = `an iceberg (${shape.label}) on ${view.symbol}, whose icebergAllowed is false`;
      const placed = await send(ctx, newOrder, view.symbol, shape.values, what);
      expectRefusal(ctx, CHECK, placed.exchange, { what });
      await cancelPlaced(ctx, view.symbol, placed.clientOrderId);
    }
  }
  const byQuote =
    rules.MARKET !== undefined &&
    !(rules.MARKET.forbidden ?? []).includes("quoteOrderQty") &&
    newOrder.parameters.some((p) => p.name === "quoteOrderQty");
  if (!view.quoteOrderQtyAllowed && view.types.includes("MARKET") && byQuote) {
    const budget = quoteBudget(view, 1, view.reference);
    const what = `a MARKET BUY by quoteOrderQty ${formatDec(budget)} on ${view.symbol}, whose quoteOrderQtyMarketAllowed is false`;
    await mustRefuse(
      ctx,
      newOrder,
      view.symbol,
      { side: "BUY", type: "MARKET", quoteOrderQty: formatDec(budget) },
      what,
    );
  }
}

/** Sends `values` on the symbol; accepted orders are cancelled (or, for MARKET, offset) at once. */
async function send(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  values: Values,
  label: string,
) {
  const placed = await placeOrder(
    ctx,
    newOrder,
    { symbol, newOrderRespType: "RESULT", ...values },
    `announced rules: ${label}`,
  );
  return placed;
}

async function cancelPlaced(ctx: RunContext, symbol: string, clientOrderId: string): Promise<void> {
  const cancel = op(ctx, "cancel_order");
  if (!cancel || ctx.ledger.get(clientOrderId)?.state === "closed") return;
  const exchange = await ctx.session.call(
    { op: cancel, params: encodeParams(cancel, { symbol, origClientOrderId: clientOrderId }) },
    "announced rules: cancel the probe",
  );
  if (ok(exchange)) ctx.ledger.closed(clientOrderId);
}

/** At the bound: anything but the filter's refusal; past it: that refusal. */
async function edgeProbe(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  probe: EdgeProbe,
): Promise<void> {
  const traded = probe.afterATrade
    ? await newestTradeId(ctx, CHECK, `announced rules: has ${view.symbol} traded?`, view.symbol)
    : undefined;
  const placed = await send(ctx, newOrder, view.symbol, probe.values, probe.what);
  const filter = refusalOf(ctx, "filter-failure", newOrder.operationId);
  if (!probe.within) {
    expectRefusal(ctx, CHECK, placed.exchange, { what: probe.what, ...filter });
    await cancelPlaced(ctx, view.symbol, placed.clientOrderId);
    return;
  }
  await within(ctx, placed.exchange, probe.what, filter.code);
  const judged = !probe.afterATrade || typeof traded === "number";
  const problem =
    ok(placed.exchange) && judged ? probe.answered?.(bodyObject(placed.exchange) ?? {}) : undefined;
  if (problem) ctx.session.fail(CHECK, placed.exchange, `${probe.what}: ${problem}`);
  await cancelPlaced(ctx, view.symbol, placed.clientOrderId);
}

/** An order at a filter's bound must not be refused by the filter (another refusal is noted, not judged). */
async function within(
  ctx: RunContext,
  exchange: RoundTrip,
  what: string,
  filterCode: number | undefined,
): Promise<void> {
  const { session } = ctx;
  if (!exchange.response || isRateLimited(exchange)) {
    session.recorder.skip(CHECK, exchange.op.operationId, `no answer to ${what}`);
    return;
  }
  if (ok(exchange)) {
    session.pass(CHECK, exchange);
    return;
  }
  const code = errorCode(exchange);
  const byFilter =
    filterCode === undefined
      ? exchange.response.status < 500 && /filter/i.test(String(bodyObject(exchange)?.msg))
      : code === filterCode;
  if (byFilter || exchange.response.status >= 500)
    session.fail(
      CHECK,
      exchange,
      `${what} is within the bound exchange_info announces, but was refused (${describeAnswer(exchange)})`,
    );
  else
    session.recorder.note(
      CHECK,
      exchange.op.operationId,
      `${what}: refused for another reason (${describeAnswer(exchange)}), so the bound itself was not observed`,
    );
}

/** Every type the symbol lists is accepted with the parameters x-order-type-rules asks for. */
async function listedTypes(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  rules: NonNullable<ContractOperation["orderTypeRules"]>,
  note: (why: string) => void,
): Promise<void> {
  for (const type of view.types) {
    if (type === "MARKET") {
      await marketAccepted(ctx, newOrder, view, rules);
      continue;
    }
    const shape =
      farShape(view, rules, type, "BUY", 1, false) ?? farShape(view, rules, type, "SELL", 1, false);
    if (!shape) {
      note(`${type}: no far-from-market order of it can be written from x-order-type-rules`);
      continue;
    }
    const placed = await send(
      ctx,
      newOrder,
      view.symbol,
      shape.values,
      `${type} listed by exchange_info (${shape.label})`,
    );
    if (ok(placed.exchange)) ctx.session.pass(CHECK, placed.exchange);
    else if (!isRateLimited(placed.exchange))
      ctx.session.fail(
        CHECK,
        placed.exchange,
        `exchange_info lists ${type} for ${view.symbol}, but a valid ${shape.label} was refused (${describeAnswer(placed.exchange)})`,
      );
    await cancelPlaced(ctx, view.symbol, placed.clientOrderId);
    const rule = rules[type];
    if (!rule) continue;
    await withoutWhatTheRuleAsks(ctx, newOrder, view.symbol, type, rule, shape.values);
    await withWhatTheRuleRefuses(ctx, newOrder, view.symbol, type, rule, shape.values);
  }
}

/**
 * The orders that break `rule` by one omission from `values` (a valid order of its type): each
 * parameter it requires left out, and each group it needs one of (atLeastOneOf, exactlyOneOf)
 * left out whole. `required` says whether the omission is of a required parameter (the spec's
 * missing-parameter refusal) or of a group. Pure.
 */
export function omissions(
  rule: OrderTypeRule,
  values: Values,
): Array<{ left: string[]; values: Values; required: boolean }> {
  const without = (names: readonly string[]) =>
    Object.fromEntries(Object.entries(values).filter(([name]) => !names.includes(name))) as Values;
  const groups = [...(rule.atLeastOneOf ?? []), ...(rule.exactlyOneOf ?? [])];
  return [
    ...(rule.required ?? [])
      .filter((name) => values[name] !== undefined)
      .map((name) => ({ left: [name], values: without([name]), required: true })),
    ...groups
      .map((group) => group.filter((name) => values[name] !== undefined))
      .filter((present) => present.length > 0)
      .map((present) => ({ left: present, values: without(present), required: false })),
  ];
}

/** Each omission of what the type's rule asks for is refused (accepted ones are cancelled at once). */
async function withoutWhatTheRuleAsks(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  type: string,
  rule: OrderTypeRule,
  values: Values,
): Promise<void> {
  for (const omission of omissions(rule, values)) {
    const what = `a ${type} without ${omission.left.join(" or ")}, which x-order-type-rules asks for`;
    const named = omission.required ? refusalOf(ctx, "missing-parameter", newOrder.operationId) : {};
    await mustRefuse(ctx, newOrder, symbol, omission.values, what, named);
  }
}

async function marketAccepted(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  rules: NonNullable<ContractOperation["orderTypeRules"]>,
): Promise<void> {
  if (!rules.MARKET) return;
  const quantity = smallestMarketQuantity(view.rules, view.reference);
  const values: Values = { side: "BUY", type: "MARKET", quantity: formatDec(quantity) };
  const buy = await send(ctx, newOrder, view.symbol, values, "MARKET listed by exchange_info");
  if (ok(buy.exchange)) ctx.session.pass(CHECK, buy.exchange);
  else if (!isRateLimited(buy.exchange))
    ctx.session.fail(
      CHECK,
      buy.exchange,
      `exchange_info lists MARKET for ${view.symbol}, but a MARKET BUY of ${formatDec(quantity)} was refused (${describeAnswer(buy.exchange)})`,
    );
  await offsetBuy(ctx, newOrder, view.symbol, buy.body);
  await withWhatTheRuleRefuses(ctx, newOrder, view.symbol, "MARKET", rules.MARKET, values);
}

/**
 * The orders that break `rule` by one addition to `values` (a valid order of its type): each
 * parameter it forbids, at a value it would take elsewhere (x-refusals' parameter-not-required),
 * and each group of which it takes exactly one sent whole, the absent members at values they would
 * take alone (exclusive-parameters: "two of an exactlyOneOf group"). Pure.
 */
export function additions(
  rule: OrderTypeRule,
  values: Values,
): Array<{
  what: string;
  values: Values;
  rule: "parameter-not-required" | "exclusive-parameters";
  parameter?: string;
}> {
  const base = Object.entries(values).map(([name, value]): [string, string] => [name, String(value)]);
  const forbidden = (rule.forbidden ?? [])
    .filter((name) => values[name] === undefined)
    .map((name) => ({
      what: `with ${name}, which x-order-type-rules forbids for it`,
      values: Object.fromEntries(plausibleWith(name, base)) as Values,
      rule: "parameter-not-required" as const,
      parameter: name,
    }));
  const wholeGroups = (rule.exactlyOneOf ?? []).flatMap((group) => {
    const absent = group.filter((name) => values[name] === undefined);
    if (absent.length === 0 || absent.length === group.length) return [];
    const whole = absent.reduce((params, name) => plausibleWith(name, params), base);
    return [
      {
        what: `with ${group.join(" and ")}, of which x-order-type-rules takes exactly one`,
        values: Object.fromEntries(whole) as Values,
        rule: "exclusive-parameters" as const,
      },
    ];
  });
  return [...forbidden, ...wholeGroups];
}

/** Each addition that breaks the type's rule is refused with its code (one taken by mistake is cancelled, or offset). */
async function withWhatTheRuleRefuses(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  type: string,
  rule: OrderTypeRule,
  values: Values,
): Promise<void> {
  for (const addition of additions(rule, values)) {
    const refusal = refusalOf(ctx, addition.rule, newOrder.operationId, addition.parameter);
    await mustRefuse(ctx, newOrder, symbol, addition.values, `a ${type} ${addition.what}`, refusal);
  }
}

/** Every type of the spec that a trading symbol does not list is refused there, with the code x-refusals names. */
async function unlistedTypes(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  rules: NonNullable<ContractOperation["orderTypeRules"]>,
  specTypes: string[],
  note: (why: string) => void,
): Promise<void> {
  const trading = ctx.market.symbols.filter((s) => takesOrders(s) && s.orderTypes.length > 0);
  for (const type of specTypes.filter((t) => t !== "MARKET")) {
    const lacking = trading.find((s) => !s.orderTypes.includes(type));
    if (!lacking) {
      note(`${type}: every trading symbol lists it`);
      continue;
    }
    const there = lacking.symbol === view.symbol ? view : await viewOf(ctx, lacking, specTypes);
    const shape =
      there && farShape({ ...there, types: [...there.types, type] }, rules, type, "BUY", 1, false);
    if (!there || !shape) {
      note(`${type}: no price to write an order of it on ${lacking.symbol}`);
      continue;
    }
    const placed = await send(
      ctx,
      newOrder,
      lacking.symbol,
      shape.values,
      `${type}, which exchange_info does not list for ${lacking.symbol}`,
    );
    expectRefusal(ctx, CHECK, placed.exchange, {
      what: `a ${shape.label} on ${lacking.symbol}, which does not list ${type}`,
      ...refusalOf(ctx, "order-type-not-allowed", newOrder.operationId),
    });
    await cancelPlaced(ctx, lacking.symbol, placed.clientOrderId);
  }
}

/** The view of another symbol, priced from its ticker. */
async function viewOf(
  ctx: RunContext,
  rules: SymbolRules,
  specTypes: string[],
): Promise<ExplorationView | undefined> {
  const ticker = op(ctx, "symbol_price_ticker");
  if (!ticker) return undefined;
  const exchange = await ctx.session.call(
    { op: ticker, params: encodeParams(ticker, { symbol: rules.symbol }) },
    `announced rules: the price of ${rules.symbol}`,
  );
  const price = tryParseDec(bodyObject(exchange)?.price);
  return price !== undefined && price > ZERO ? explorationView(rules, price, specTypes) : undefined;
}

/** Stops up to MAX_NUM_ALGO_ORDERS are accepted, one more is refused (only where the cap is small). */
async function algoCap(
  ctx: RunContext,
  newOrder: ContractOperation,
  view: ExplorationView,
  rules: NonNullable<ContractOperation["orderTypeRules"]>,
  note: (why: string) => void,
): Promise<void> {
  const cap = view.maxAlgoOrders;
  const stopType = view.types.find((t) => t === "STOP_LOSS" || t === "TAKE_PROFIT");
  const shape = stopType ? farShape(view, rules, stopType, "SELL", 1, false) : undefined;
  if (cap === undefined || cap > LARGEST_CAP_PROBED || !shape) {
    note(
      `MAX_NUM_ALGO_ORDERS: ${cap === undefined ? "not announced" : `a cap of ${cap} is not probed (more than ${LARGEST_CAP_PROBED} orders)`}`,
    );
    return;
  }
  const open = op(ctx, "open_orders");
  const listed = open
    ? await ctx.session.call(
        { op: open, params: encodeParams(open, { symbol: view.symbol }) },
        "announced rules: open stops",
      )
    : undefined;
  const existing = Array.isArray(listed?.response?.json)
    ? (listed.response.json as Array<Record<string, unknown>>).filter(
        (o) => typeof o.type === "string" && /^(STOP_LOSS|TAKE_PROFIT)/.test(o.type),
      ).length
    : 0;
  const placed: string[] = [];
  try {
    for (let n = existing + 1; n <= cap + 1; n += 1) {
      const order = await send(
        ctx,
        newOrder,
        view.symbol,
        shape.values,
        `stop ${n} of MAX_NUM_ALGO_ORDERS ${cap}`,
      );
      placed.push(order.clientOrderId);
      if (n <= cap)
        await within(
          ctx,
          order.exchange,
          `stop ${n} of MAX_NUM_ALGO_ORDERS ${cap}`,
          refusalOf(ctx, "filter-failure", newOrder.operationId).code,
        );
      else
        expectRefusal(ctx, CHECK, order.exchange, {
          what: `stop ${n}, one past MAX_NUM_ALGO_ORDERS ${cap}`,
          ...refusalOf(ctx, "filter-failure", newOrder.operationId),
        });
      if (!ok(order.exchange) && n <= cap) break;
    }
  } finally {
    for (const id of placed) await cancelPlaced(ctx, view.symbol, id);
  }
}
