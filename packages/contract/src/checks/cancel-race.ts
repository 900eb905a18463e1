/**
 * cancel_race: a cancel sent at the same moment as a fill of the same order gets exactly one of
 * the two outcomes. A resting LIMIT SELL is placed inside the spread (it becomes the best ask), then
 * a MARKET BUY of its quantity and its cancel are sent together. Either the cancel succeeds (the
 * order ends CANCELED with what had executed before) or it is refused because the order filled
 * (FILLED); query_order must agree with whichever answer came. Whatever the buy executed is sold back.
 * The race is run on every symbol the run trades.
 */
import { formatDec, tryParseDec, ZERO } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { op, type RunContext, tradedRules } from "../kit/context.js";
import { type SymbolRules, smallestMarketQuantity } from "../kit/market.js";
import { bestPrices, placeOrder } from "../kit/order-placing.js";
import type { ContractCheck } from "./check.js";

const CHECK = "cancel_race";

export const cancelRace: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "race",
  description:
    "a cancel sent at the same moment as a fill of the same order gets exactly one outcome, and query_order agrees",
  covers: [],
  hooks: [{ phase: "trading-behaviour", run: cancelRacePhase }],
  appliesTo: (operation) =>
    operation.operationId === "cancel_order" && operation.behaviour.unknownReferences?.order !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: ["cancel-succeeds-after-fill"],
};

export async function cancelRacePhase(ctx: RunContext): Promise<void> {
  const ops = raceOperations(ctx);
  if (!ops || !ctx.session.recorder.enabled(CHECK)) return;
  if (!ctx.trading || !ctx.session.canSign || !ctx.rules)
    return ctx.session.recorder.skip(CHECK, ops.cancel.operationId, "needs --allow-trading with credentials");
  // Every symbol the run trades: a race settled right on one symbol says nothing of another's book.
  for (const rules of tradedRules(ctx)) await raceOn(ctx, ops, rules);
}

interface RaceOperations {
  newOrder: ContractOperation;
  cancel: ContractOperation;
  query: ContractOperation;
}

function raceOperations(ctx: RunContext): RaceOperations | undefined {
  const newOrder = op(ctx, "new_order");
  const cancel = op(ctx, "cancel_order");
  const query = op(ctx, "query_order");
  return newOrder && cancel && query ? { newOrder, cancel, query } : undefined;
}

async function raceOn(
  ctx: RunContext,
  { newOrder, cancel, query }: RaceOperations,
  rules: SymbolRules,
): Promise<void> {
  const symbol = rules.symbol;
  const skip = (reason: string) =>
    ctx.session.recorder.skip(CHECK, cancel.operationId, `${symbol}: ${reason}`);
  const prices = await bestPrices(ctx, `cancel race: best prices of ${symbol}`, symbol);
  if (!prices) return skip("an empty side of the book: nothing to race against");
  const price = prices.bid + rules.tick;
  if (rules.tick <= ZERO || price >= prices.ask) return skip("no price inside the spread to rest a sell at");
  // Sized for the MARKET BUY that races the cancel (MARKET_LOT_SIZE too), so it is not refused.
  const quantity = formatDec(smallestMarketQuantity(rules, price));
  const sell = await placeOrder(
    ctx,
    newOrder,
    { symbol, side: "SELL", type: "LIMIT", timeInForce: "GTC", price: formatDec(price), quantity },
    "cancel race: a resting LIMIT SELL inside the spread",
  );
  if (!ok(sell.exchange)) return skip(`the resting sell was refused (${describeAnswer(sell.exchange)})`);
  const [buy, cancelled] = await Promise.all([
    placeOrder(
      ctx,
      newOrder,
      { symbol, side: "BUY", type: "MARKET", quantity },
      "cancel race: MARKET BUY against it",
    ),
    ctx.session.call(
      { op: cancel, params: encodeParams(cancel, { symbol, origClientOrderId: sell.clientOrderId }) },
      "cancel race: cancel sent at the same moment",
    ),
  ]);
  const final = await ctx.session.call(
    { op: query, params: encodeParams(query, { symbol, origClientOrderId: sell.clientOrderId }) },
    "cancel race: the order's final state",
  );
  const state = bodyObject(final);
  const status = state?.status;
  if (ok(cancelled)) {
    ctx.ledger.closed(sell.clientOrderId);
    const answer = bodyObject(cancelled);
    const same = tryParseDec(answer?.executedQty) === tryParseDec(state?.executedQty);
    if (answer?.status === "CANCELED" && status === "CANCELED" && same) ctx.session.pass(CHECK, cancelled);
    else
      ctx.session.fail(
        CHECK,
        cancelled,
        `the cancel succeeded (status ${String(answer?.status)}, executedQty ${String(answer?.executedQty)}), but query_order then shows status ${String(status)} with executedQty ${String(state?.executedQty)}: two outcomes for one order`,
      );
  } else if (status === "FILLED") {
    ctx.ledger.closed(sell.clientOrderId);
    ctx.session.pass(CHECK, cancelled);
  } else {
    ctx.session.fail(
      CHECK,
      cancelled,
      `the cancel was refused (${describeAnswer(cancelled)}), but query_order shows status ${String(status)}: neither outcome`,
    );
  }
  // Sell back what the buy executed beyond what our own sell gave it.
  const bought = tryParseDec(buy.body?.executedQty) ?? ZERO;
  const sold = tryParseDec(state?.executedQty) ?? ZERO;
  if (bought > sold) {
    await placeOrder(
      ctx,
      newOrder,
      { symbol, side: "SELL", type: "MARKET", quantity: formatDec(bought - sold) },
      "cancel race: MARKET SELL offsetting the buy",
    );
  }
}
