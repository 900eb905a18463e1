/**
 * rate_limit_enforcement (opt-in, --load): the bounded load phase. At the end of the run, with no
 * order of the run open, it spends the REQUEST_WEIGHT limit exchangeInfo announces on purpose
 * with the heaviest read the spec weighs (x-weight and its tiers), sent past the pacer:
 *
 * - every request that fits under the limit is served, and the first that would pass it gets the
 *   spec's too-much-weight refusal (429) with a Retry-After that ends no later than the window;
 * - going on past the 429 (the spec: "banned after continuing to send requests past a 429") gets
 *   the ip-banned refusal (418) with a Retry-After within a bounded number of requests, and every
 *   request is refused while the ban lasts;
 * - after waiting what the server asked, requests are served again.
 *
 * Then, once the target serves again (or where no burst is sent), probes of the connection, paced,
 * each run only where the one before found nothing wrong:
 *
 * - a connection used on, in groups each pipelined once the one before is answered: the heaviest
 *   read and a ping are answered in the order they came (RFC 9112 §9.3.2: an earlier request
 *   slower than a later one still has its answer first); then the server's time and a refused
 *   cancel with its parameters in a body; then a ping, which is answered too. And requests that
 *   arrive in pieces (the head cut mid-token, the body a byte at a time) are read whole, each
 *   answered as the same request sent at once was. Each exchange may end with the connection
 *   closed (HTTP allows it), never with a request left unanswered on an open connection;
 * - connection slots: SEQUENTIAL_CONNECTIONS connections opened one after another, each closed
 *   after one ping, are all served (a limit on open connections must not count closed ones);
 * - sizes, by HTTP's own statuses: a request line of OVERLONG_BYTES, if refused for its size, is
 *   refused with 414 (RFC 9110 §15.5.15), headers of that size with 431 (RFC 6585 §5); never a
 *   5xx, never a connection left open without an answer. A server with no such limit passes.
 *
 * Then the shortest ORDERS limit, with far orders sent past the pacer from the start of its window
 * (with --allow-trading): every order up to the limit is accepted, the next gets the spec's
 * too-many-orders refusal (429) with a Retry-After that ends with the window, the open orders are
 * still queried and cancelled meanwhile (that refusal is new_order's alone), and an order is
 * accepted again after the wait.
 *
 * Bounded: it runs only when reaching the limit takes at most MAX_BURST requests (MAX_ORDER_BURST
 * orders, fewer than the symbol keeps open), sends at most MAX_PAST_LIMIT requests past the 429,
 * and waits out at most MAX_RECOVERY_S seconds (a minute for an ORDERS window).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type LimitKind, type RateLimit, readLimits } from "@marketapi/pacer";
import { isObject, refusalFor } from "@marketapi/spec/model";
import { InterruptedError } from "../core/errors.js";
import type { ContractOperation } from "../core/operations.js";
import { answerAsResponse, answerJson, type PipelinedResult, type PipelineShape } from "../http/pipelined.js";
import { encodeParams, type ParamList, type RequestPlan } from "../http/request.js";
import { describeAnswer, errorCode } from "../kit/answers.js";
import { op, type RunContext } from "../kit/context.js";
import { countersOf, counterValue } from "../kit/counters.js";
import { errorAnswerProblems } from "../kit/error-text.js";
import { farBuyOrder, unknownSymbol } from "../kit/market.js";
import { ORDER_OPERATIONS } from "../kit/order-operations.js";
import { cancelOpen, type PlacedOrder, placeOrder } from "../kit/order-placing.js";
import type { Values } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "rate_limit_enforcement";

export const rateLimitEnforcement: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "load",
  description:
    "--load only: connections opened and closed one after another are all served, an overlong request line or headers are refused (if at all) with 414 or 431, pipelined requests are answered in order and the connection serves on after them, requests sent in pieces are read whole, the announced REQUEST_WEIGHT limit is enforced exactly (served up to it, 429 with Retry-After at it), a ban (418 with Retry-After) follows requests sent on past the 429, and requests are served again after the wait; the shortest ORDERS limit likewise (with --allow-trading), with queries and cancels served while orders are refused",
  covers: [],
  hooks: [{ phase: "end", run: (ctx) => loadPhase(ctx) }],
  appliesTo: (operation) =>
    operation.operationId === BURST_OPERATION ||
    operation.operationId === PROBE_OPERATION ||
    operation.operationId === ORDER_OPERATION,
  notApplicable: "judged on what the load phase sends (order_book, ping, new_order)",
  seenToCatch: [
    "closed-connections-still-counted",
    "overlong-request-line-refused-431",
    "overlong-headers-refused-414",
    "connection-stops-reading-after-pipelined-requests",
    "request-in-pieces-misread",
    "weight-limit-refuses-at-the-limit",
    "weight-limit-429-without-retry-after",
    "weight-limit-retry-after-too-short",
    "weight-limit-not-enforced",
    "missing-host-served",
    "orders-limit-refuses-cancels",
    "orders-limit-announced-twice-enforced",
    "orders-limit-429-without-retry-after",
  ],
};

const BURST_OPERATION = "order_book";
/** The operation the ORDERS limit counts. */
const ORDER_OPERATION = ORDER_OPERATIONS.newOrder;
/** The cheapest read: the connection probes send it. */
const PROBE_OPERATION = "ping";
/**
 * Connections the phase opens and closes one after another, each with one ping: more than any
 * per-address limit on open connections a server sets, so one that counts closed connections
 * against it refuses some.
 */
export const SEQUENTIAL_CONNECTIONS = 600;
/** An overlong request line or header block: more than HTTP servers commonly take (8 to 16 KB). */
export const OVERLONG_BYTES = 64 * 1024;
/** The most requests the phase sends to reach the limit; a higher limit is not reached. */
export const MAX_BURST = 400;
/** The most requests sent on past the first 429 to be banned. */
export const MAX_PAST_LIMIT = 30;
/** The longest wait (Retry-After) the phase waits out to see recovery. */
export const MAX_RECOVERY_S = 150;
/** Time the burst needs left in the weight window before it starts (or it waits for the next). */
const WINDOW_MARGIN_MS = 20_000;

/** One answer of the burst: the weight it spent and the used weight before it, by the counters. */
export interface BurstStep {
  status: number;
  weight: number;
  /** X-MBX-USED-WEIGHT-1M of the answer before it (0 at a window's start). */
  usedBefore: number;
  /** The answer's own X-MBX-USED-WEIGHT-1M, when it sent one. */
  usedAfter: number | undefined;
  retryAfter: string | undefined;
  code: number | undefined;
  /** Milliseconds left in the window when the answer came (by the target's clock). */
  windowLeftMs: number;
}

/** What a burst spends and the counter that shows it: request weight, or orders. */
export interface BurstTerms {
  /** One step of the burst ("request", "order"). */
  item: string;
  /** What a step spends ("weight", "orders"). */
  spends: string;
  /** The counter header each answer carries. */
  counter: string;
  /** The window the limit counts in ("the weight window"). */
  window: string;
}

export const WEIGHT_TERMS: BurstTerms = {
  item: "request",
  spends: "weight",
  counter: "X-MBX-USED-WEIGHT-1M",
  window: "the weight window",
};

/**
 * Judges the burst up to and including its first refusal. `expected` is the spec's refusal for
 * spending past the limit. Returns the problems, empty when the limit held exactly.
 */
export function judgeBurst(
  limit: number,
  steps: readonly BurstStep[],
  expected: { status: number; code: number },
  terms: BurstTerms = WEIGHT_TERMS,
): string[] {
  const problems: string[] = [];
  for (const [i, step] of steps.entries()) {
    const fits = step.usedBefore + step.weight <= limit;
    const where = `${terms.item} ${i + 1} (${terms.spends} ${step.weight}, ${step.usedBefore} of ${limit} used before it)`;
    if (fits && step.status !== 200) {
      problems.push(`${where}: refused with ${step.status} although it fits under the limit`);
      break;
    }
    if (fits && step.usedAfter !== undefined && step.usedAfter !== step.usedBefore + step.weight)
      problems.push(
        `${where}: ${terms.counter} says ${step.usedAfter}, not ${step.usedBefore + step.weight}`,
      );
    if (fits) continue;
    if (step.status === 200) {
      problems.push(`${where}: served although it passes the limit (expected ${expected.status})`);
      break;
    }
    if (step.status !== expected.status)
      problems.push(`${where}: status ${step.status}, expected ${expected.status}`);
    if (step.code !== expected.code)
      problems.push(`${where}: code ${step.code ?? "absent"}, expected ${expected.code}`);
    problems.push(...retryAfterProblems(where, step.retryAfter, step.windowLeftMs, terms.window));
    break;
  }
  return problems;
}

/** How far a Retry-After may miss the window's end (the target's clock is known to about this). */
const RETRY_AFTER_SLACK_MS = 1000;

/**
 * Retry-After must be whole seconds, at least 1, and end with the limit's window, give or take a
 * second: "seconds to wait before the next request" (the spec), and what was refused does not fit
 * until the window's count starts again, so a shorter wait leads into another 429, and a longer one
 * outlasts the window.
 */
export function retryAfterProblems(
  where: string,
  retryAfter: string | undefined,
  windowLeftMs: number,
  window = WEIGHT_TERMS.window,
): string[] {
  if (retryAfter === undefined) return [`${where}: no Retry-After`];
  if (!/^\d+$/.test(retryAfter) || Number(retryAfter) < 1)
    return [`${where}: Retry-After "${retryAfter}" is not a whole number of seconds ≥ 1`];
  const seconds = Number(retryAfter);
  const ends = `${window}, which ends in ${(windowLeftMs / 1000).toFixed(1)} s`;
  if (seconds * 1000 > windowLeftMs + RETRY_AFTER_SLACK_MS + 999)
    return [`${where}: Retry-After ${retryAfter} s outlasts ${ends}`];
  if (seconds * 1000 < windowLeftMs - RETRY_AFTER_SLACK_MS)
    return [
      `${where}: Retry-After ${retryAfter} s ends before ${ends}: a request sent then still falls in the window whose ${window === WEIGHT_TERMS.window ? "weight" : "count"} is spent`,
    ];
  return [];
}

async function loadPhase(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  if (!ctx.load) return session.skip(CHECK, BURST_OPERATION, "the load phase is opt-in (--load)");
  const open = ctx.ledger.outstanding();
  if (open.length > 0)
    return session.skip(
      CHECK,
      BURST_OPERATION,
      `${open.length} order(s) of the run are still open or in doubt (${[...new Set(open.map((e) => `${e.purpose} ${e.state}`))].join(", ")}): no load on top of them`,
    );
  const serving = await weightLimitPhase(ctx);
  const ping = session.model.operation(PROBE_OPERATION);
  if (!ping) return;
  // In the window after the recovery: a connection refused there is not a rate limit's refusal.
  if (!serving)
    return session.skip(
      CHECK,
      PROBE_OPERATION,
      "the connection probes run only once the target serves again after the weight limit",
    );
  // Each probe only where the ones before found the connection sound: a fault seen is not piled on.
  if (!(await connectionReuse(ctx, ping))) return;
  if (await connectionSlots(ctx, ping)) await overlongRequests(ctx, ping);
  await framingProbes(ctx, ping);
  await orderLimitPhase(ctx);
}

/** A request whose framing HTTP/1.1 forbids, and what a server must do with it. */
interface FramingProbe {
  what: string;
  plan: RequestPlan;
  /** The status HTTP requires, or undefined: served as the request sent plainly, or a readable 4xx. */
  must?: { status: number; rule: string };
}

/**
 * Requests whose framing HTTP/1.1 forbids, each on a connection of its own: one without Host (RFC
 * 9112 §3.2: a server "MUST respond with a 400"), and a body with two Content-Length lines that
 * disagree (RFC 9112 §6.3: 400, then close) get 400; the API key header twice with the same key is
 * served as the request with it once, or refused with a 4xx whose msg a person can read
 * (kit/error-text.ts). Never a 5xx, never a connection left without an answer. (Two Host lines
 * are not sent: Node's HTTP server, in front of many implementations, serves them by the first.)
 */
async function framingProbes(ctx: RunContext, ping: ContractOperation): Promise<void> {
  const { session } = ctx;
  const keyed = session.model.operation("historical_trades");
  const { cancelPlan } = probeRequests(ctx, ping);
  const rfc9112 = (section: string) => ({ status: 400, rule: `RFC 9112 ${section}` });
  const probes: FramingProbe[] = [
    {
      what: "an HTTP/1.1 ping without Host",
      plan: { op: ping, params: [], wire: { omitHost: true } },
      must: rfc9112("§3.2"),
    },
    ...(cancelPlan && cancelPlan.plan.placement === "body"
      ? [
          {
            what: `${cancelPlan.what} with a second Content-Length that disagrees`,
            plan: { ...cancelPlan.plan, wire: { headerLines: ["Content-Length: 1"] } },
            must: rfc9112("§6.3"),
          },
        ]
      : []),
    ...(keyed && session.credentials
      ? [
          {
            what: `${keyed.operationId} with the API key header sent twice (the same key)`,
            plan: {
              op: keyed,
              params: [["symbol", ctx.values.symbol]] as ParamList,
              wire: { headerLines: [`${session.model.signing.apiKeyHeader}: ${session.credentials.apiKey}`] },
            },
          },
        ]
      : []),
  ];
  for (const probe of probes) {
    const exchange = await session.call(probe.plan, `load: ${probe.what}`, {
      connection: "own",
      responseChecks: false,
      essential: true,
      ...signalOf(ctx),
    });
    const problem = framingProblem(probe, exchange);
    // Shown on ping, the probes' operation (the phase's cell), whatever operation carried it.
    const shown = { ...exchange, op: ping };
    if (problem) session.fail(CHECK, shown, problem);
    else session.pass(CHECK, shown);
  }
}

/** What is wrong with the answer to a framing probe, or undefined. */
export function framingProblem(
  probe: Pick<FramingProbe, "what" | "must">,
  exchange: Pick<RoundTrip, "response" | "error" | "request">,
): string | undefined {
  const response = exchange.response;
  if (!response)
    return `${probe.what}: no answer (${exchange.error?.message ?? "the connection closed"}); a server answers a request it cannot take with 400`;
  if (probe.must && response.status !== probe.must.status)
    return `${probe.what}: status ${response.status}; ${probe.must.rule} says a server must answer it ${probe.must.status}`;
  if (response.status >= 500) return `${probe.what}: server error, status ${response.status}`;
  const unreadable = errorAnswerProblems(exchange) ?? [];
  return unreadable.length > 0 ? `${probe.what}: ${unreadable.join("; ")}` : undefined;
}

/** The most orders the phase places to reach an ORDERS limit; a higher limit is not reached. */
export const MAX_ORDER_BURST = 200;
/** The longest ORDERS window the phase spends (it may wait for one to start, then for one to end). */
const MAX_ORDER_WINDOW_MS = 60_000;

export const ORDER_TERMS: BurstTerms = {
  item: "order",
  spends: "counting",
  counter: "X-MBX-ORDER-COUNT",
  window: "the order count's window",
};

/**
 * The shortest ORDERS limit exchangeInfo announces, spent on purpose from the start of a window
 * with far LIMIT orders sent past the pacer (each rests; they are cancelled after): every order up
 * to the limit is accepted, and the next is refused with the spec's too-many-orders refusal and a
 * Retry-After that ends with the window. While new orders are refused, the run's open order is
 * still queried and cancelled: the spec states that refusal for new_order alone. After the wait an
 * order is accepted again.
 */
async function orderLimitPhase(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  const newOrder = op(ctx, ORDER_OPERATION);
  const query = op(ctx, ORDER_OPERATIONS.queryOrder);
  if (!newOrder || !query || !op(ctx, ORDER_OPERATIONS.cancelOrder)) return;
  const skip = (why: string) => session.skip(CHECK, newOrder.operationId, why);
  const limit = announcedWindow(ctx, "ORDERS");
  const tooMany = refusalFor(session.model.refusals, "too-many-orders", newOrder.operationId);
  if (!limit || !tooMany)
    return skip("the target announces no ORDERS limit, or the spec states no too-many-orders refusal");
  if (!ctx.trading || !session.canSign || !("price" in ctx.farBuy))
    return skip("the ORDERS limit is reached with orders far from the market: it needs --allow-trading");
  const keepable = (ctx.rules?.maxOrders ?? Number.POSITIVE_INFINITY) - ctx.ledger.outstanding().length;
  if (limit.limit > MAX_ORDER_BURST || limit.limit >= keepable)
    return skip(
      `the ORDERS limit of ${limit.limit} is more than the phase places (${MAX_ORDER_BURST}) or than the symbol keeps open at once`,
    );
  if (limit.windowMs > MAX_ORDER_WINDOW_MS)
    return skip(
      `the shortest ORDERS window lasts ${limit.windowMs / 1000} s; the phase waits out at most a minute`,
    );
  ctx.progress({
    type: "stage",
    message: `load: placing the ${limit.limit} orders an ORDERS window allows, then one more`,
  });
  const counter = countersOf(newOrder, /X-MBX-ORDER-COUNT/).find((c) => c.windowMs === limit.windowMs);
  const windowLeft = () => leftOfWindow(ctx, limit.windowMs);
  await wait(ctx, windowLeft() + 250);
  const values = { ...farBuyOrder(ctx.farBuy), symbol: ctx.values.symbol };
  const placed: PlacedOrder[] = [];
  const steps: BurstStep[] = [];
  let usedBefore: number | undefined;
  let refusal: RoundTrip | undefined;
  try {
    for (let i = 0; i <= limit.limit && !refusal; i += 1) {
      const order = await placeOrder(
        ctx,
        newOrder,
        values,
        `load: order ${i + 1} toward the ORDERS limit`,
        undefined,
        {
          unpaced: true,
          essential: true,
          ...signalOf(ctx),
        },
      );
      const { exchange } = order;
      if (!exchange.response) return skip(`no answer: ${describeAnswer(exchange)}`);
      const status = exchange.response.status;
      const usedAfter = counter ? counterValue(exchange, counter) : undefined;
      // The first answer tells what the window held before the burst (other orders of the account).
      usedBefore ??= usedAfter === undefined ? 0 : status === 200 ? usedAfter - 1 : usedAfter;
      steps.push({
        status,
        weight: 1,
        usedBefore,
        usedAfter,
        retryAfter: exchange.response.headers["retry-after"],
        code: errorCode(exchange),
        windowLeftMs: windowLeft(),
      });
      if (status !== 200) refusal = exchange;
      else {
        placed.push(order);
        usedBefore = usedAfter ?? usedBefore + 1;
      }
    }
    const problems = judgeBurst(limit.limit, steps, tooMany, ORDER_TERMS);
    if (!refusal) problems.push(`${steps.length} orders against a limit of ${limit.limit}: none refused`);
    const judged = refusal ?? placed.at(-1)?.exchange;
    if (!judged) return;
    if (problems.length > 0) return session.fail(CHECK, judged, problems.join("; "));
    session.pass(CHECK, judged);
    if (refusal) await whileOrdersRefused(ctx, query, values, placed.at(-1), refusal);
  } finally {
    await cancelOpen(
      ctx,
      placed.map((p) => p.clientOrderId),
      "load: cancel the orders of the ORDERS limit",
    );
  }
}

/**
 * While new orders are refused for the ORDERS limit, the open order is queried and cancelled (the
 * spec states the refusal for new_order alone); after the wait the server asked, an order is
 * accepted again.
 */
async function whileOrdersRefused(
  ctx: RunContext,
  query: ContractOperation,
  values: Values,
  open: PlacedOrder | undefined,
  refusal: RoundTrip,
): Promise<void> {
  const { session } = ctx;
  if (open) {
    const which = { symbol: ctx.values.symbol, origClientOrderId: open.clientOrderId };
    const read = await session.call(
      { op: query, params: encodeParams(query, which) },
      "load: query an open order while new orders are refused",
      { unpaced: true },
    );
    const cancelled = await cancelOpen(
      ctx,
      [open.clientOrderId],
      "load: cancel an order while new orders are refused",
    );
    for (const answer of [read, cancelled]) {
      if (!answer) continue;
      // Shown on new_order, the operation the ORDERS limit counts (the phase's cell).
      const shown = { ...answer, op: refusal.op };
      if (answer.response?.status === 200) session.pass(CHECK, shown);
      else
        session.fail(
          CHECK,
          shown,
          `${answer.op.operationId} of an open order got ${describeAnswer(answer)} while new orders were refused for the ORDERS limit: the spec states that refusal for new_order alone`,
        );
    }
  }
  const seconds = Number(refusal.response?.headers["retry-after"]);
  if (!Number.isFinite(seconds) || seconds * 1000 > MAX_ORDER_WINDOW_MS) return;
  await wait(ctx, seconds * 1000 + 250);
  const again = await placeOrder(
    ctx,
    refusal.op,
    values,
    "load: an order after the wait the ORDERS limit asked",
  );
  await cancelOpen(ctx, [again.clientOrderId], "load: cancel the order after the wait");
  if (again.exchange.response?.status === 200) session.pass(CHECK, again.exchange);
  else
    session.fail(
      CHECK,
      again.exchange,
      `an order after waiting the ${seconds} s the ORDERS limit's Retry-After asked got ${describeAnswer(again.exchange)}`,
    );
}

/**
 * The burst to the REQUEST_WEIGHT limit, the ban and the recovery. True when the target is left
 * serving: the burst was not sent (skipped), or the requests after the wait were served.
 */
async function weightLimitPhase(ctx: RunContext): Promise<boolean> {
  const { session } = ctx;
  const op = session.model.operation(BURST_OPERATION);
  const limit = announcedWindow(ctx, "REQUEST_WEIGHT");
  const tooMuch = refusalFor(session.model.refusals, "too-much-weight", BURST_OPERATION);
  const banned = refusalFor(session.model.refusals, "ip-banned", BURST_OPERATION);
  if (!op || !limit || !tooMuch) {
    session.skip(
      CHECK,
      BURST_OPERATION,
      "the target announces no REQUEST_WEIGHT limit, or the spec states no too-much-weight refusal",
    );
    return true;
  }
  const params = heaviestParams(ctx, op);
  const weight = session.weightOf({ op, params });
  const needed = Math.ceil(limit.limit / weight) + 1;
  if (needed > MAX_BURST) {
    session.skip(
      CHECK,
      op.operationId,
      `reaching ${limit.limit} weight with requests of ${weight} takes ${needed} requests, more than the phase's ${MAX_BURST}`,
    );
    return true;
  }
  ctx.progress({
    type: "stage",
    message: `load: spending the ${limit.limit} weight a window allows (${needed} requests of ${weight}), then past it`,
  });
  const windowLeft = () => leftOfWindow(ctx, limit.windowMs);
  if (windowLeft() < WINDOW_MARGIN_MS) await wait(ctx, windowLeft() + 1000);

  const sendPlan = async (plan: RequestPlan, label: string) => {
    const exchange = await session.call(plan, label, {
      unpaced: true,
      essential: true,
      ...signalOf(ctx),
    });
    ANSWERED_AT.set(exchange, session.now());
    return exchange;
  };
  const send = (label: string) => sendPlan({ op, params }, label);
  // Lighter requests at the end land the count on the limit exactly: the request that reaches it
  // must be served, and the one after refused.
  const landing = landingPlans(ctx, op);
  const steps: BurstStep[] = [];
  let usedBefore: number | undefined;
  let refusal: RoundTrip | undefined;
  for (let i = 0; i < needed + LANDING_REQUESTS && !refusal; i += 1) {
    const remaining = usedBefore === undefined ? limit.limit : limit.limit - usedBefore;
    const plan = landing.find((p) => p.weight <= remaining)?.plan ?? { op, params };
    const exchange = await sendPlan(plan, `load: request ${i + 1} toward the weight limit`);
    const weight = session.weightOf(plan);
    if (!exchange.response) {
      session.skip(CHECK, op.operationId, `no answer: ${describeAnswer(exchange)}`);
      return false;
    }
    const usedAfter = usedWeightOf(exchange);
    // The first answer tells what the window held before the burst (other traffic of this IP).
    if (usedBefore === undefined)
      usedBefore =
        usedAfter === undefined ? 0 : exchange.response.status === 200 ? usedAfter - weight : usedAfter;
    if (exchange.response.status === 200 && usedAfter !== undefined && usedAfter < usedBefore) {
      // The window ended during the burst: the counts start again; judge from here.
      steps.length = 0;
      usedBefore = usedAfter - weight;
    }
    steps.push({
      status: exchange.response.status,
      weight,
      usedBefore,
      usedAfter,
      retryAfter: exchange.response.headers["retry-after"],
      code: errorCode(exchange),
      windowLeftMs: windowLeft(),
    });
    if (exchange.response.status !== 200) refusal = exchange;
    else usedBefore = usedAfter ?? usedBefore + weight;
  }
  const last = refusal;
  const problems = judgeBurst(limit.limit, steps, tooMuch);
  if (!last)
    problems.push(`${steps.length} requests of ${weight} against a limit of ${limit.limit}: none refused`);
  const judged = last ?? (await send("load: one more"));
  if (problems.length > 0) {
    session.fail(CHECK, judged, problems.join("; "));
    return false;
  }
  session.pass(CHECK, judged);

  const after = banned ? await banPhase(ctx, send, banned) : undefined;
  return recovery(ctx, send, after && after !== judged ? [judged, after] : [judged]);
}

/**
 * SEQUENTIAL_CONNECTIONS connections, one after another, each with one ping and closed after its
 * answer: every one must be served. A refusal after many closed connections is a slot never given
 * back.
 */
async function connectionSlots(ctx: RunContext, ping: ContractOperation): Promise<boolean> {
  const { session } = ctx;
  ctx.progress({
    type: "stage",
    message: `load: ${SEQUENTIAL_CONNECTIONS} connections one after another, each closed after one ping`,
  });
  let last: RoundTrip | undefined;
  for (let i = 0; i < SEQUENTIAL_CONNECTIONS; i += 1) {
    last = await session.call(
      { op: ping, params: [] },
      `load: connection ${i + 1}, opened after ${i} closed`,
      {
        connection: "own",
        responseChecks: false,
        essential: true,
        ...signalOf(ctx),
      },
    );
    if (last.response?.status !== 200) {
      session.fail(
        CHECK,
        last,
        `connection ${i + 1}, opened after the ${i} before it were closed, got ${describeAnswer(last)}: a server must give back a closed connection's slot (every one of ${SEQUENTIAL_CONNECTIONS} connections opened one after another must be served)`,
      );
      return false;
    }
  }
  if (last) session.pass(CHECK, last);
  return true;
}

/** The statuses that refuse a request for its size, and the one HTTP gives each overlong part. */
const SIZE_REFUSALS = [413, 414, 431];

/** What is wrong with the answer to an overlong part of a request, or undefined. */
export function overlongProblem(
  part: "request line" | "headers",
  answer: { status: number } | undefined,
  end: "answered" | "closed" | "timeout" | "error",
): string | undefined {
  const want = part === "request line" ? 414 : 431;
  if (answer === undefined)
    return end === "timeout"
      ? `a request with ${part} of ${OVERLONG_BYTES} bytes got no answer, and the connection stayed open`
      : undefined;
  if (answer.status >= 500)
    return `a request with ${part} of ${OVERLONG_BYTES} bytes got a server error, status ${answer.status}`;
  if (SIZE_REFUSALS.includes(answer.status) && answer.status !== want)
    return `a request with ${part} of ${OVERLONG_BYTES} bytes was refused with ${answer.status}; HTTP's status for it is ${want}`;
  return undefined;
}

/** A ping with an overlong request line (a long query), and one with an overlong header. */
async function overlongRequests(ctx: RunContext, ping: ContractOperation): Promise<boolean> {
  const { session } = ctx;
  const padding = "x".repeat(OVERLONG_BYTES);
  const probes = [
    { part: "request line" as const, plan: { op: ping, params: [["padding", padding]] as ParamList } },
    {
      part: "headers" as const,
      plan: { op: ping, params: [] as ParamList, wire: { headers: { "x-padding": padding } } },
    },
  ];
  let ok = true;
  for (const { part, plan } of probes) {
    const exchange = await session.call(plan, `load: ping with ${part} of ${OVERLONG_BYTES} bytes`, {
      connection: "own",
      responseChecks: false,
      essential: true,
      ...signalOf(ctx),
    });
    const end = exchange.response ? "answered" : exchange.error?.kind === "timeout" ? "timeout" : "closed";
    const problem = overlongProblem(part, exchange.response, end);
    if (problem) session.fail(CHECK, exchange, problem);
    else session.pass(CHECK, exchange);
    ok &&= problem === undefined;
  }
  return ok;
}

/** What an answer of a connection probe must look like to be its own request's. */
export interface ExpectedAnswer {
  what: string;
  isItsAnswer(status: number, body: unknown): boolean;
}

/** Answers of the rate limits (429, 418): they may answer any request, so they tell nothing of order. */
const LIMIT_STATUSES = [429, 418];

/**
 * Problems of requests sent on one connection (pipelined, in rounds or in pieces): a 5xx; an answer
 * that is not its request's (a connection answers its requests in the order they came, RFC 9112
 * §9.3.2); a request left unanswered while the connection stayed open for `timeoutMs`. A
 * connection closed early is allowed (the client sends the rest again), and what it answered is
 * judged. `how` says how the requests were sent.
 */
export function connectionProblems(
  expected: readonly ExpectedAnswer[],
  result: { answers: readonly { status: number; bodyText: string }[]; end: string },
  timeoutMs: number,
  how: string,
): string[] {
  const problems: string[] = [];
  for (const [i, answer] of result.answers.entries()) {
    const want = expected[i];
    if (!want) break;
    if (answer.status >= 500)
      problems.push(`answer ${i + 1} (to ${want.what}; ${how}): server error, status ${answer.status}`);
    else if (
      !LIMIT_STATUSES.includes(answer.status) &&
      !want.isItsAnswer(answer.status, answerJson(answer.bodyText))
    )
      problems.push(
        `answer ${i + 1} (status ${answer.status}) is not the answer to request ${i + 1}, ${want.what} (${how}): a connection answers its requests in the order they came, each as if sent alone`,
      );
  }
  const missing = expected[result.answers.length];
  if (result.end === "timeout" && missing)
    problems.push(
      `request ${result.answers.length + 1} of ${expected.length}, ${missing.what} (${how}), got no answer within ${timeoutMs} ms while the connection stayed open: a server answers every request it reads, or closes the connection`,
    );
  return problems;
}

/** The answers the connection probes tell apart by their shape. */
export const ANSWER_SHAPES = {
  ping: (status: number, body: unknown) => status === 200 && isObject(body) && Object.keys(body).length === 0,
  serverTime: (status: number, body: unknown) => status === 200 && isObject(body) && "serverTime" in body,
  book: (status: number, body: unknown) =>
    status === 200 && isObject(body) && Array.isArray(body.bids) && Array.isArray(body.asks),
  /** A refusal in the API's error shape, of the status and code `like` had where one is given. */
  refusal: (like?: { status: number; code: number | undefined }) => (status: number, body: unknown) =>
    status >= 400 &&
    isObject(body) &&
    typeof body.code === "number" &&
    (like === undefined || (like.status === status && like.code === body.code)),
};

/**
 * Requests the connection probes send: the heaviest read (order_book), ping, server_time, and a
 * cancel of an order on a symbol nobody lists (refused, so safe anywhere; its parameters in a form
 * body where the operation takes one).
 */
function probeRequests(ctx: RunContext, ping: ContractOperation) {
  const { model } = ctx.session;
  const book = model.operation(BURST_OPERATION);
  const time = model.operation("server_time");
  const cancel = model.operation("cancel_order");
  const pingPlan = { plan: { op: ping, params: [] as ParamList }, what: "ping", shape: ANSWER_SHAPES.ping };
  const timePlan = time && {
    plan: { op: time, params: [] as ParamList },
    what: "server_time",
    shape: ANSWER_SHAPES.serverTime,
  };
  const bookPlan = book && {
    plan: { op: book, params: heaviestParams(ctx, book) },
    what: `${BURST_OPERATION} at its heaviest`,
    shape: ANSWER_SHAPES.book,
  };
  const cancelPlan =
    cancel && ctx.session.credentials
      ? {
          plan: {
            op: cancel,
            params: [
              ["symbol", unknownSymbol(ctx.values.symbols)],
              ["orderId", "1"],
            ] as ParamList,
            ...(cancel.acceptsFormBody ? { placement: "body" as const } : {}),
          },
          what: `cancel_order of an unlisted symbol${cancel.acceptsFormBody ? " (parameters in the body)" : ""}`,
          shape: ANSWER_SHAPES.refusal(),
        }
      : undefined;
  return { pingPlan, timePlan, bookPlan, cancelPlan };
}

type ProbeRequest = { plan: RequestPlan; what: string; shape: ExpectedAnswer["isItsAnswer"] };

/**
 * Two exchanges, each on a connection of its own: groups of pipelined requests, each group sent
 * once the one before is answered; then requests sent in pieces, one after another, the cancel
 * judged against the answer it got when sent at once. True when both found nothing wrong.
 */
async function connectionReuse(ctx: RunContext, ping: ContractOperation): Promise<boolean> {
  const { pingPlan, timePlan, bookPlan, cancelPlan } = probeRequests(ctx, ping);
  // The heaviest read before a ping: the later request is ready first. Then a request with a
  // body behind a light one, whose answer comes once the first is out; then one more.
  const rounds = [[bookPlan, pingPlan], [timePlan, cancelPlan], [pingPlan]].map((round) =>
    round.filter((r): r is ProbeRequest => r !== undefined),
  );
  const sent = rounds.flat();
  const whole = await connectionExchange(
    ctx,
    sent,
    { rounds: rounds.map((round) => round.length) },
    rounds.map((round) => round.map((r) => r.what).join(" and ")).join(", then ") +
      ": each group pipelined on one connection once the group before it was answered",
  );
  // The cancel's refusal sent at once is what the same request in pieces must get.
  const cancelAt = sent.indexOf(cancelPlan as ProbeRequest);
  const refused = cancelAt >= 0 ? whole.result?.answers[cancelAt] : undefined;
  const like =
    refused && refused.status >= 400 && !LIMIT_STATUSES.includes(refused.status)
      ? { status: refused.status, code: codeOf(answerJson(refused.bodyText)) }
      : undefined;
  // The signed cancel first: its timestamp is set when the exchange starts, and its pieces take a while.
  const inPieces = [
    cancelPlan && { ...cancelPlan, shape: ANSWER_SHAPES.refusal(like) },
    timePlan,
    bookPlan,
  ].filter((r): r is ProbeRequest => r !== undefined);
  const pieces = await connectionExchange(
    ctx,
    inPieces,
    { rounds: inPieces.map(() => 1), inPieces: true },
    "each request sent in pieces (its head a few bytes at a time, its body a byte at a time), one after another on one connection",
  );
  return whole.sound && pieces.sound;
}

function codeOf(body: unknown): number | undefined {
  return isObject(body) && typeof body.code === "number" ? body.code : undefined;
}

/** One exchange of a connection probe, judged: its result (none when it could not be judged), and whether it passed. */
async function connectionExchange(
  ctx: RunContext,
  probes: readonly ProbeRequest[],
  shape: PipelineShape,
  how: string,
): Promise<{ result?: PipelinedResult; sound: boolean }> {
  const { session } = ctx;
  ctx.progress({ type: "stage", message: `load: ${how}` });
  const started = performance.now();
  const { requests, result } = await session.pipelined(
    probes.map((p) => p.plan),
    shape,
  );
  const last = Math.min(result.answers.length, probes.length - 1);
  const answer = result.answers[last];
  // Judged on ping's cell with the other connection probes, whatever the requests were.
  const exchange: RoundTrip = {
    op: session.model.operation(PROBE_OPERATION) ?? probes[last]!.plan.op,
    case: `load: ${how}`,
    plan: probes[last]!.plan,
    request: requests[last]!,
    ...(answer ? { response: answerAsResponse(answer) } : {}),
    durationMs: performance.now() - started,
  };
  if (result.end === "error") {
    session.skip(CHECK, exchange.op.operationId, `${how}: not judged: ${result.error}`);
    return { sound: true };
  }
  const problems = connectionProblems(
    probes.map((p) => ({ what: p.what, isItsAnswer: p.shape })),
    result,
    session.timeoutMs,
    how,
  );
  if (problems.length > 0) session.fail(CHECK, exchange, problems.join("; "));
  else session.pass(CHECK, exchange);
  return { result, sound: problems.length === 0 };
}

/** Sends on past the 429 until the ban (418), bounded; judges the ban's answer and that it holds. */
async function banPhase(
  ctx: RunContext,
  send: (label: string) => Promise<RoundTrip>,
  banned: { status: number; code: number },
): Promise<RoundTrip | undefined> {
  const { session } = ctx;
  let last: RoundTrip | undefined;
  for (let i = 0; i < MAX_PAST_LIMIT; i += 1) {
    last = await send(`load: request ${i + 1} past the 429`);
    const status = last.response?.status;
    if (status === banned.status) break;
    if (status !== 429) {
      session.fail(
        CHECK,
        last,
        `request ${i + 1} past the 429 got ${describeAnswer(last)}, expected 429 or ${banned.status}`,
      );
      return last;
    }
  }
  if (last?.response?.status !== banned.status) {
    session.skip(
      CHECK,
      BURST_OPERATION,
      `no ban within ${MAX_PAST_LIMIT} requests past the 429 (the spec does not say after how many)`,
    );
    return last;
  }
  const problems: string[] = [];
  if (errorCode(last) !== banned.code)
    problems.push(`the ban's code is ${errorCode(last) ?? "absent"}, expected ${banned.code}`);
  const retry = last.response.headers["retry-after"];
  if (retry === undefined || !/^\d+$/.test(retry) || Number(retry) < 1)
    problems.push(
      `the ban's Retry-After is ${retry === undefined ? "absent" : `"${retry}"`}, expected whole seconds ≥ 1`,
    );
  const again = await send("load: during the ban");
  if (again.response?.status !== banned.status)
    problems.push(`a request during the ban got ${describeAnswer(again)}, expected ${banned.status}`);
  if (problems.length > 0) session.fail(CHECK, last, problems.join("; "));
  else session.pass(CHECK, last);
  return again.response?.status === banned.status ? again : last;
}

/**
 * Waits what the refusals asked (at most MAX_RECOVERY_S): the ban's Retry-After, and the 429's,
 * since the weight window it refused in may outlast a short ban (sending into it again is what
 * earns a ban); then a request must be served.
 */
async function recovery(
  ctx: RunContext,
  send: (label: string) => Promise<RoundTrip>,
  refusals: RoundTrip[],
): Promise<boolean> {
  const { session } = ctx;
  let until = 0;
  for (const refusal of refusals) {
    const text = refusal.response?.headers["retry-after"];
    const seconds = Number(text);
    if (!Number.isFinite(seconds) || seconds > MAX_RECOVERY_S) {
      session.skip(
        CHECK,
        BURST_OPERATION,
        `recovery not judged: Retry-After ${text ?? "absent"} (the phase waits at most ${MAX_RECOVERY_S} s)`,
      );
      return false;
    }
    until = Math.max(until, (ANSWERED_AT.get(refusal) ?? session.now()) + seconds * 1000);
  }
  const waitMs = Math.max(0, until - session.now()) + 250;
  ctx.progress({
    type: "stage",
    message: `load: waiting ${(waitMs / 1000).toFixed(1)} s as the server asked`,
  });
  await wait(ctx, waitMs);
  const next = await send("load: after waiting what the server asked");
  if (next.response?.status === 200) {
    session.pass(CHECK, next);
    return true;
  }
  session.fail(
    CHECK,
    next,
    `after waiting what the server asked (${refusals.map(describeAnswer).join(", then ")}), the request got ${describeAnswer(next)}`,
  );
  return false;
}

/** When each answer of the phase came, by the target's clock (a Retry-After counts from there). */
const ANSWERED_AT = new WeakMap<RoundTrip, number>();

/**
 * The shortest window exchangeInfo announces a limit of `kind` for, and that limit, read as the
 * pacer reads them (readLimits); none when the announcement is unusable (the run's rate-limit
 * note then says why).
 */
function announcedWindow(ctx: RunContext, kind: LimitKind): { limit: number; windowMs: number } | undefined {
  let rules: ReturnType<typeof readLimits>;
  try {
    rules = readLimits(ctx.market.rateLimits as unknown as RateLimit[]);
  } catch {
    return undefined;
  }
  return rules.filter((rule) => rule.kind === kind).sort((a, b) => a.windowMs - b.windowMs)[0];
}

/** Milliseconds left in the current window of `windowMs`, by the target's clock. */
function leftOfWindow(ctx: RunContext, windowMs: number): number {
  return windowMs - (ctx.session.now() % windowMs);
}

/** Requests the burst may add to land on the limit exactly (the lighter tiers, then pings). */
const LANDING_REQUESTS = 12;

/**
 * The burst's requests by weight, heaviest first: the burst operation at the top of each of its
 * weight tiers (x-weight), and ping, the lightest read, to make up what is left.
 */
function landingPlans(ctx: RunContext, op: ContractOperation): Array<{ plan: RequestPlan; weight: number }> {
  const base: ParamList = [["symbol", ctx.values.symbol]];
  const rule = op.weightRule;
  const plans: RequestPlan[] = (rule.tiers ?? [])
    .filter((tier) => rule.parameter !== undefined && Number.isFinite(tier.upTo))
    .map((tier) => ({ op, params: [...base, [rule.parameter!, String(tier.upTo)]] as ParamList }));
  const ping = ctx.session.model.operation(PROBE_OPERATION);
  if (ping) plans.push({ op: ping, params: [] });
  return plans
    .map((plan) => ({ plan, weight: ctx.session.weightOf(plan) }))
    .sort((a, b) => b.weight - a.weight);
}

/** The burst's parameters: the run's symbol, and the parameter that makes it heaviest (x-weight tiers). */
function heaviestParams(ctx: RunContext, op: ContractOperation): ParamList {
  const base: ParamList = [["symbol", ctx.values.symbol]];
  const rule = op.weightRule;
  const top = rule.tiers?.at(-1);
  if (!rule.parameter || !top || !Number.isFinite(top.upTo)) return base;
  return [...base, [rule.parameter, String(top.upTo)]];
}

function usedWeightOf(exchange: RoundTrip): number | undefined {
  const value = Number(exchange.response?.headers["x-mbx-used-weight-1m"]);
  return Number.isFinite(value) ? value : undefined;
}

function signalOf(ctx: RunContext): { signal?: AbortSignal } {
  return ctx.session.signal ? { signal: ctx.session.signal } : {};
}

async function wait(ctx: RunContext, ms: number): Promise<void> {
  await sleep(ms, undefined, signalOf(ctx)).catch(() => {
    throw new InterruptedError("interrupted");
  });
}
