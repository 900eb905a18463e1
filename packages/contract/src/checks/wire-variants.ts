/**
 * wire_variants: the signing rule and the parameter placement hold for every way the spec lets a
 * request be written, and the timing rule at its edges rather than at one far point.
 * - x-signing: the signature in upper-case hex is served (compared case-insensitively); so is a
 *   request whose escapes are lower-case hex, or whose values are escaped character by character
 *   (the signature covers the bytes as sent, however they are escaped);
 * - the acceptance rule on both sides of each bound, with a margin for the clock and the network:
 *   a timestamp 1.5 s inside the default window is served, 1.5 s outside refused; 1.5 s past the
 *   lead x-signing allows (when it states one) refused; with recvWindow at its maximum, the same
 *   inside and outside it;
 * - x-parameter-placement: a name in both the query and the body takes the query's value;
 * - x-signing's payload is percent-encoded as sent: a form body with characters outside ASCII left
 *   unescaped (UTF-8 bytes), signed over the bytes sent, is refused with a 4xx (the signature's
 *   -1022, or the value's own refusal), never served or answered 5xx (a cancel of an id no order
 *   has, so nothing can be created or cancelled).
 * A served probe that is refused for its timestamp is sent once more (a stall is not a fault).
 */
import { formatDec, parseDec, tryParseDec } from "../core/decimal.js";
import { type ContractOperation, isSigned, methodOf } from "../core/operations.js";
import { type AuthVariant, encodeParams, type WireVariant } from "../http/request.js";
import { bodyObject, describeAnswer, errorCode, ok } from "../kit/answers.js";
import { expectRefusal, expectServed, op, type RunContext } from "../kit/context.js";
import { type FarBuy, farBuyOrder } from "../kit/market.js";
import { recordSent } from "../kit/order-placing.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "wire_variants";

export const wireVariants: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "wire",
  description:
    "signatures in either hex case and over any escaping are served; timestamps are judged at the edges of the window; a name in query and body takes the query's value",
  covers: ["x-signing", "x-parameter-placement"],
  hooks: [{ phase: "trading-behaviour", run: wireVariantsPhase }],
  appliesTo: (operation) => isSigned(operation),
  notApplicable: "not signed",
  seenToCatch: [
    "signature-hex-case-sensitive",
    "escapes-normalised-before-verifying",
    "default-window-ten-seconds",
    "future-timestamps-within-window",
    "body-wins-over-query",
    "server-error-on-bytes-outside-ascii",
  ],
};

/** How far inside or outside a bound a timestamp is put (clock offset, latency, a busy machine). */
const EDGE_MARGIN_MS = 1500;

interface Probe {
  what: string;
  auth?: AuthVariant;
  wire?: WireVariant;
  served: boolean;
  code?: number | undefined;
}

function probes(ctx: RunContext, recvWindowDeclared: boolean): Probe[] {
  const signing = ctx.session.model.signing;
  const timestamp = signing.invalidTimestampCode;
  const window = signing.recvWindowDefault;
  const out: Probe[] = [
    { what: "a signature in upper-case hex", auth: { signature: "upper-case" }, served: true },
    { what: "percent-escapes in lower-case hex", wire: { escapes: "lower" }, served: true },
    { what: "every character of every value percent-escaped", wire: { escapes: "every" }, served: true },
    {
      what: `a timestamp ${(window - EDGE_MARGIN_MS) / 1000} s old (inside the default ${window} ms window)`,
      auth: { timestampShiftMs: -(window - EDGE_MARGIN_MS) },
      served: true,
    },
    {
      what: `a timestamp ${(window + EDGE_MARGIN_MS) / 1000} s old (outside the default ${window} ms window)`,
      auth: { timestampShiftMs: -(window + EDGE_MARGIN_MS) },
      served: false,
      code: timestamp,
    },
  ];
  const ahead = signing.aheadAllowedMs;
  if (ahead !== undefined)
    out.push({
      what: `a timestamp ${(ahead + EDGE_MARGIN_MS) / 1000} s ahead (past the ${ahead} ms x-signing allows ahead)`,
      auth: { timestampShiftMs: ahead + EDGE_MARGIN_MS },
      served: false,
      code: timestamp,
    });
  if (recvWindowDeclared) {
    const max = signing.recvWindowMaximum;
    out.push(
      {
        what: `${signing.recvWindowParameter}=${max} and a timestamp ${(max - EDGE_MARGIN_MS) / 1000} s old`,
        auth: { recvWindow: max, timestampShiftMs: -(max - EDGE_MARGIN_MS) },
        served: true,
      },
      {
        what: `${signing.recvWindowParameter}=${max} and a timestamp ${(max + EDGE_MARGIN_MS) / 1000} s old`,
        auth: { recvWindow: max, timestampShiftMs: -(max + EDGE_MARGIN_MS) },
        served: false,
        code: timestamp,
      },
    );
  }
  return out;
}

export async function wireVariantsPhase(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK) || !ctx.session.canSign) return;
  const read = ctx.session.model.operations.find(
    // A signed read served with the symbol alone (not one that looks an order up).
    (o) =>
      isSigned(o) &&
      methodOf(o) === "GET" &&
      o.behaviour.unknownReferences?.order === undefined &&
      !o.parameters.some((p) => p.required && p.name !== "symbol"),
  );
  if (read) await probeAll(ctx, read, () => encodeParams(read, { symbol: ctx.values.symbol }), false);
  const newOrder = op(ctx, "new_order");
  if (!newOrder || !ctx.trading || !("price" in ctx.farBuy)) {
    if (newOrder)
      ctx.session.recorder.skip(
        CHECK,
        newOrder.operationId,
        "its variants place orders: needs --allow-trading",
      );
    return;
  }
  const declared = newOrder.parameters.some((p) => p.name === ctx.session.model.signing.recvWindowParameter);
  await probeAll(ctx, newOrder, () => farOrder(ctx, newOrder), declared);
  if (newOrder.acceptsFormBody) await queryWins(ctx, newOrder);
  await rawBytesRefused(ctx);
}

/** A client order id no order has, with characters outside ASCII (two and three UTF-8 bytes). */
export const NON_ASCII_ID = "mct-ünknown-€";

/** A cancel whose form body holds characters outside ASCII unescaped: refused, whatever the code. */
async function rawBytesRefused(ctx: RunContext): Promise<void> {
  const cancel = op(ctx, "cancel_order");
  if (!cancel?.acceptsFormBody || !cancel.parameters.some((p) => p.name === "origClientOrderId")) return;
  const what = `a form body with characters outside ASCII left unescaped (origClientOrderId=${NON_ASCII_ID} as UTF-8 bytes), signed over the bytes sent`;
  const exchange = await ctx.session.call(
    {
      op: cancel,
      params: encodeParams(cancel, { symbol: ctx.values.symbol, origClientOrderId: NON_ASCII_ID }),
      placement: "body",
      wire: { escapes: "raw" },
    },
    "wire: a form body with bytes outside ASCII",
  );
  expectRefusal(ctx, CHECK, exchange, { what });
}

/** A LIMIT BUY far below the market under a fresh client id of the ledger. */
function farOrder(ctx: RunContext, newOrder: ContractOperation) {
  const far = ctx.farBuy as FarBuy;
  const id = ctx.ledger.nextClientOrderId();
  recordSent(ctx, ctx.values.symbol, id, "wire variants");
  return encodeParams(newOrder, {
    ...farBuyOrder(far),
    symbol: ctx.values.symbol,
    newClientOrderId: id,
    newOrderRespType: "ACK",
  });
}

async function probeAll(
  ctx: RunContext,
  operation: ContractOperation,
  params: () => ReturnType<typeof encodeParams>,
  recvWindow: boolean,
): Promise<void> {
  for (const probe of probes(ctx, recvWindow)) {
    let exchange = await send(ctx, operation, params(), probe);
    // A served probe refused for its timestamp may have met a stall: once more before it fails.
    if (
      probe.served &&
      !ok(exchange) &&
      errorCode(exchange) === ctx.session.model.signing.invalidTimestampCode
    )
      exchange = await send(ctx, operation, params(), probe);
    if (probe.served) expectServed(ctx, CHECK, exchange, `a request with ${probe.what}`);
    else expectRefusal(ctx, CHECK, exchange, { what: `a request with ${probe.what}`, code: probe.code });
  }
}

async function send(
  ctx: RunContext,
  operation: ContractOperation,
  params: ReturnType<typeof encodeParams>,
  probe: Probe,
): Promise<RoundTrip> {
  const exchange = await ctx.session.call(
    {
      op: operation,
      params,
      ...(probe.auth ? { auth: probe.auth } : {}),
      ...(probe.wire ? { wire: probe.wire } : {}),
    },
    `wire: ${probe.what}`,
  );
  await settle(ctx, exchange);
  return exchange;
}

/** An order a probe created is cancelled at once; one refused never existed. */
async function settle(ctx: RunContext, exchange: RoundTrip): Promise<void> {
  const id = exchange.plan.params.find(([n]) => n === "newClientOrderId")?.[1];
  if (id === undefined) return;
  const cancel = op(ctx, "cancel_order");
  const status = exchange.response?.status ?? 500;
  if (!ok(exchange)) {
    if (status < 500) ctx.ledger.closed(id);
    return;
  }
  ctx.ledger.opened(
    id,
    typeof bodyObject(exchange)?.orderId === "number" ? (bodyObject(exchange)!.orderId as number) : undefined,
  );
  if (!cancel) return;
  const cancelled = await ctx.session.call(
    { op: cancel, params: encodeParams(cancel, { symbol: ctx.values.symbol, origClientOrderId: id }) },
    "wire: cancel the probe's order",
  );
  if (ok(cancelled)) ctx.ledger.closed(id);
}

/** quantity in the query and twice it in the body: the order is placed for the query's. */
async function queryWins(ctx: RunContext, newOrder: ContractOperation): Promise<void> {
  const far = ctx.farBuy as FarBuy;
  const inQuery = parseDec(far.quantity);
  const id = ctx.ledger.nextClientOrderId();
  recordSent(ctx, ctx.values.symbol, id, "wire variants");
  const exchange = await ctx.session.call(
    {
      op: newOrder,
      params: encodeParams(newOrder, {
        ...farBuyOrder(far),
        symbol: ctx.values.symbol,
        newClientOrderId: id,
        newOrderRespType: "RESULT",
      }),
      wire: { alsoInBody: [["quantity", formatDec(inQuery * 2n)]] },
    },
    `wire: quantity ${far.quantity} in the query and ${formatDec(inQuery * 2n)} in the body`,
  );
  const origQty = tryParseDec(bodyObject(exchange)?.origQty);
  await settle(ctx, exchange);
  if (!ok(exchange)) {
    ctx.session.fail(
      CHECK,
      exchange,
      `an order with quantity in both the query and the body was refused (${describeAnswer(exchange)}); x-parameter-placement: the query's value is taken`,
    );
    return;
  }
  if (origQty === inQuery) ctx.session.pass(CHECK, exchange);
  else
    ctx.session.fail(
      CHECK,
      exchange,
      `quantity ${far.quantity} in the query and ${formatDec(inQuery * 2n)} in the body placed an order of origQty ${origQty === undefined ? "?" : formatDec(origQty)}; x-parameter-placement: a name in both takes the query's value`,
    );
}
