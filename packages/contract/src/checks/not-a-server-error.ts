// not_a_server_error: no answer is a 5xx, and every request gets an answer within --timeout, also
// requests pipelined on one connection (HTTP/1.1), two or many: answered in order, or the
// connection closed.
import { isObject } from "@marketapi/spec/model";
import type { ContractOperation } from "../core/operations.js";
import {
  answerAsResponse,
  answerJson,
  type PipelinedAnswer,
  type PipelinedResult,
} from "../http/pipelined.js";
import type { WireRequest } from "../http/request.js";
import type { RunContext } from "../kit/context.js";
import type { RoundTrip, Verdicts } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "not_a_server_error";

export const notAServerError: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "5xx",
  description: "no response is a 5xx, and every request gets an answer within --timeout",
  covers: [],
  hooks: [
    {
      phase: "answer",
      judge: (exchange, _declared, verdicts) => checkNotAServerError(exchange, verdicts),
      noAnswer: (exchange, verdicts, message) => checkNoAnswer(exchange, verdicts, message),
    },
    { phase: "end", run: pipelinedReads },
  ],
  seenToCatch: [
    "server-error-on-avg-price",
    "pipelined-request-left-unanswered",
    "pipelined-past-a-bound-left-unanswered",
  ],
};

export function checkNotAServerError(exchange: RoundTrip, verdicts: Verdicts): void {
  const status = exchange.response!.status;
  if (status >= 500) verdicts.fail(CHECK, exchange, `server error: status ${status}`);
  else verdicts.pass(CHECK, exchange);
}

/** A request that got no answer at all (timeout, refused connection, reset). */
export function checkNoAnswer(exchange: RoundTrip, verdicts: Verdicts, message: string): void {
  verdicts.fail(CHECK, exchange, `no response: ${message}`);
}

/** What a pipelined request's answer must look like to be its own (the order is judged by it). */
export interface PipelinedExpectation {
  what: string;
  isItsAnswer: (body: unknown) => boolean;
}

/**
 * Problems of requests pipelined on one connection: a 5xx; a request left unanswered while the
 * connection stayed open (RFC 9112 §9.3.2: a server answers pipelined requests in the order they
 * came, or closes the connection, after which a client sends them again); answers out of order.
 * A connection closed early is allowed, and what it answered is judged.
 */
export function pipelineProblems(
  expected: readonly PipelinedExpectation[],
  result: PipelinedResult,
  timeoutMs: number,
): string[] {
  const problems: string[] = [];
  for (const [i, answer] of result.answers.entries()) {
    const want = expected[i];
    if (answer.status >= 500)
      problems.push(`answer ${i + 1} (to ${want?.what ?? "nothing"}): server error, status ${answer.status}`);
    else if (want && answer.status === 200 && !want.isItsAnswer(answerJson(answer.bodyText)))
      problems.push(
        `answer ${i + 1} is not the answer to request ${i + 1} (${want.what}): pipelined requests are answered in the order they came`,
      );
  }
  if (result.end === "timeout" && expected.length === 1 && result.answers.length === 0)
    problems.push(
      `${expected[0]!.what} got no answer within ${timeoutMs} ms while its connection stayed open: a server answers a request, or closes the connection`,
    );
  else if (result.end === "timeout" && result.answers.length < expected.length)
    problems.push(
      `request ${result.answers.length + 1} of ${expected.length} (${expected[result.answers.length]!.what}), pipelined on one connection, got no answer within ${timeoutMs} ms while the connection stayed open: an HTTP/1.1 server answers pipelined requests in order, or closes the connection`,
    );
  return problems;
}

/** The two reads the pipelining probe sends, each told by its answer: the server's time, then ping. */
function pipelinedPair(ctx: RunContext): Array<PipelinedExpectation & { op: ContractOperation }> {
  const time = ctx.session.model.operation("server_time");
  const ping = ctx.session.model.operation("ping");
  if (!time || !ping) return [];
  return [
    { op: time, what: "server_time", isItsAnswer: (body) => isObject(body) && "serverTime" in body },
    { op: ping, what: "ping", isItsAnswer: (body) => isObject(body) && !("serverTime" in body) },
  ];
}

/**
 * Pings written at once on one connection by the deep probe: more than a server keeps waiting for
 * one connection, so a server with a bound must close the connection past it, not leave the rest
 * unanswered.
 */
export const DEEP_PIPELINE = 100;

/**
 * Connections opened together, each writing one ping at the same moment: more requests at once
 * than one connection may pipeline, each a client of its own. Every one is answered or its
 * connection closed, however many a server takes in at once.
 */
export const CLIENTS_AT_ONCE = 100;

/**
 * Requests pipelined on one connection: server_time and ping, both answered in order; then
 * DEEP_PIPELINE pings, each answered in order, or the connection closed; then CLIENTS_AT_ONCE
 * pings, each on a connection of its own, written at one moment, judged the same way. A connection
 * left open with requests unanswered for --timeout (nothing more coming on it) is a fault.
 */
async function pipelinedReads(ctx: RunContext): Promise<void> {
  const pair = pipelinedPair(ctx);
  if (pair.length === 0) return;
  await judgePipeline(ctx, pair);
  const ping = pair.find((p) => p.what === "ping")!;
  await judgePipeline(
    ctx,
    Array.from({ length: DEEP_PIPELINE }, () => ping),
  );
  await judgeClientsAtOnce(ctx, ping);
}

/** CLIENTS_AT_ONCE pings, each on a connection of its own, written at one moment: none left unanswered on an open connection. */
async function judgeClientsAtOnce(
  ctx: RunContext,
  ping: PipelinedExpectation & { op: ContractOperation },
): Promise<void> {
  const { session } = ctx;
  const started = performance.now();
  const { requests, results } = await session.together(
    Array.from({ length: CLIENTS_AT_ONCE }, () => ({ op: ping.op, params: [] })),
  );
  const problems = results.map((result) => pipelineProblems([ping], result, session.timeoutMs));
  const worst = Math.max(
    0,
    problems.findIndex((p) => p.length > 0),
  );
  const answer = results[worst]?.answers[0];
  const exchange = probeExchange(
    ping.op,
    `${CLIENTS_AT_ONCE} × ping, each on a connection of its own, written at one moment`,
    requests[worst]!,
    answer,
    started,
  );
  const failed = problems.filter((p) => p.length > 0).length;
  const unjudged = results.filter((r) => r.end === "error").length;
  if (unjudged === results.length)
    return session.recorder.note(
      CHECK,
      ping.op.operationId,
      `${CLIENTS_AT_ONCE} connections at once not judged: ${results[0]?.error}`,
    );
  if (failed > 0)
    session.fail(
      CHECK,
      exchange,
      `${failed} of ${CLIENTS_AT_ONCE} pings, each on a connection of its own written at the same moment, went wrong, the first: ${problems[worst]!.join("; ")}`,
    );
  else session.pass(CHECK, exchange);
}

async function judgePipeline(
  ctx: RunContext,
  expected: ReadonlyArray<PipelinedExpectation & { op: ContractOperation }>,
): Promise<void> {
  const { session } = ctx;
  const started = performance.now();
  const { requests, result } = await session.pipelined(expected.map((p) => ({ op: p.op, params: [] })));
  const last = Math.min(result.answers.length, expected.length - 1);
  const answer = result.answers[last];
  const what =
    expected.length === 2
      ? expected.map((p) => p.what).join(" and ")
      : `${expected.length} × ${expected[0]!.what}`;
  const exchange = probeExchange(
    expected[last]!.op,
    `${what} pipelined on one connection`,
    requests[last]!,
    answer,
    started,
  );
  if (result.end === "error") {
    session.recorder.note(
      CHECK,
      exchange.op.operationId,
      `requests pipelined on one connection not judged: ${result.error}`,
    );
    return;
  }
  const problems = pipelineProblems(expected, result, session.timeoutMs);
  if (problems.length > 0) session.fail(CHECK, exchange, problems.join("; "));
  else session.pass(CHECK, exchange);
}

/** A connection probe's request and answer as a round trip the verdicts name (`started`: performance.now()). */
function probeExchange(
  op: ContractOperation,
  what: string,
  request: WireRequest,
  answer: PipelinedAnswer | undefined,
  started: number,
): RoundTrip {
  return {
    op,
    case: what,
    plan: { op, params: [] },
    request,
    ...(answer ? { response: answerAsResponse(answer) } : {}),
    durationMs: performance.now() - started,
  };
}
