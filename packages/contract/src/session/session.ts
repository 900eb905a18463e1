/**
 * Sends requests for the checks, counts them against the budget, paces them by the server's rate
 * limits, and hands every answer to the judge it was given (the checks run on every answer,
 * phases/answer.ts).
 */
import { createPacer, type PacedRequest, type Pacer, PacerWaitError, requestWeight } from "@marketapi/pacer";
import { refusalFor } from "@marketapi/spec/model";
import { BudgetExhausted, ConnectionError, InterruptedError, OperationUnresponsive } from "../core/errors.js";

export { BudgetExhausted, OperationUnresponsive, PassStopped } from "../core/errors.js";

import type { ContractModel, ContractOperation } from "../core/operations.js";
import {
  type PipelinedAnswer,
  type PipelinedResult,
  type PipelineShape,
  sendAlone,
  sendPipelined,
  sendTogether,
} from "../http/pipelined.js";
import {
  type BuildContext,
  buildRequest,
  type Credentials,
  maskRequest,
  type RequestPlan,
  redactSecrets,
  secretsOf,
  type WireRequest,
} from "../http/request.js";
import { send, type TransportError } from "../http/transport.js";
import { CoverageRecorder } from "./coverage.js";
import { ImplementationTracker } from "./not-implemented.js";
import type { AnswerJudge, RoundTrip, TimedRoundTrip, Verdicts } from "./round-trip.js";
import type { CheckName, ExchangeRecord, Failure, Recorder } from "./verdicts.js";

export { paramValue, type RoundTrip } from "./round-trip.js";

export interface SessionOptions {
  model: ContractModel;
  baseUrl: string;
  headers: Record<string, string>;
  credentials?: Credentials;
  /** A second account's credentials (masked like the first wherever the report shows them). */
  secondCredentials?: Credentials;
  timeoutMs: number;
  maxRequests: number;
  recorder: Recorder;
  /** What runs on every answer, and on every request that got none (unless a call asks not to). */
  judge?: AnswerJudge;
  signal?: AbortSignal;
  /** Called after every exchange (tests and progress use it). */
  onExchange?: (exchange: RoundTrip) => void;
}

export interface CallOptions {
  /** Run the response-level checks on the answer (default true). */
  responseChecks?: boolean;
  /** Not counted against --max-requests and not stopped by an interrupt (clean-up). */
  essential?: boolean;
  /**
   * Sent at once, whatever the pacer says (the load phase, which reaches the limits on purpose);
   * its answer still tells the pacer what was spent and any hold the target announced.
   */
  unpaced?: boolean;
  /** For an essential call: a bound of its own (the clean-up's deadline). */
  signal?: AbortSignal;
  /**
   * "own": sent on a new connection of its own, closed after the answer (`Connection: close`),
   * as a client that opens a connection per request sends it.
   */
  connection?: "own";
}

const BODY_EXCERPT = 300;

const MAX_CONSECUTIVE_TRANSPORT_ERRORS = 3;
/** Longest Retry-After the run waits out; beyond it the run stops. */
const MAX_RATE_LIMIT_PAUSE_S = 15;
/** The same bound for the pacer's holds (429 Retry-After, 418 ban). */
const MAX_HOLD_MS = MAX_RATE_LIMIT_PAUSE_S * 1000;

export class Session implements Verdicts {
  readonly model: ContractModel;
  readonly recorder: Recorder;
  readonly credentials: Credentials | undefined;
  readonly secondCredentials: Credentials | undefined;
  readonly timeoutMs: number;
  readonly maxRequests: number;
  requests = 0;
  /** Server time minus local time, from the server_time probe (set it with adoptClock). */
  clockOffsetMs = 0;
  /** Whether clockOffsetMs was read from the target (its server time), not assumed 0. */
  clockSynced = false;
  /** Counts the target's clock being read again with another offset (a sandbox clock moved). */
  clockEpoch = 0;
  /**
   * Every round trip of the run in the order it was sent, with when, by the target's clock: what
   * a judgement over the whole run reads (the weight window's restarts, rate_counters).
   */
  readonly timeline: TimedRoundTrip[] = [];
  /** The last X-MBX-USED-WEIGHT-1M seen. */
  usedWeight = 0;
  /** REQUEST_WEIGHT per minute from exchangeInfo, when known. */
  weightLimit: number | undefined;
  /** What the run exercised of the spec (every exchange feeds it). */
  readonly coverage: CoverageRecorder;
  /**
   * Paces every request by the limits exchangeInfo announces (set by the probe) and each
   * request's x-weight: the same pacer a client of @marketapi/client gets. Its windows follow the
   * target's clock.
   */
  readonly pacer: Pacer;
  /** How long requests waited for the rate limits, in all. */
  pacedMs = 0;
  /** Answers 429 and 418 the run got. */
  rateLimitedCount = 0;
  /** Why the announced limits could not be kept, when they could not. */
  rateLimitsNote: string | undefined;
  /** Which operations answered only 404/405/501 (not implemented). */
  readonly implementation = new ImplementationTracker();
  private consecutiveTransportErrors = 0;
  private readonly unresponsive = new Set<string>();
  private readonly requestCounts = new Map<string, number>();
  private readonly failureCounts = new Map<string, number>();
  private readonly failuresShown = new Map<string, number>();
  private readonly buildContext: BuildContext;
  private readonly endpointHeaderNames: string[];

  constructor(private readonly options: SessionOptions) {
    this.model = options.model;
    this.recorder = options.recorder;
    this.credentials = options.credentials;
    this.secondCredentials = options.secondCredentials;
    this.timeoutMs = options.timeoutMs;
    this.maxRequests = options.maxRequests;
    this.endpointHeaderNames = Object.keys(options.headers);
    this.coverage = new CoverageRecorder(options.model.operations, options.model.relations);
    this.pacer = createPacer({
      clock: {
        now: () => this.now(),
        setTimer: (callback, ms) => {
          const timer = setTimeout(callback, ms);
          return () => clearTimeout(timer);
        },
      },
    });
    this.buildContext = {
      baseUrl: options.baseUrl,
      signing: options.model.signing,
      headers: options.headers,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      now: () => this.now(),
    };
  }

  get signal(): AbortSignal | undefined {
    return this.options.signal;
  }

  /** Whether signed requests can be made (a key and a secret were given). */
  get canSign(): boolean {
    return this.credentials !== undefined && this.credentials.apiSecret !== "";
  }

  /**
   * The target's time in whole milliseconds: the API's times are integers, and the clock offset
   * (a midpoint between two readings) may have a half.
   */
  /**
   * Takes the target's clock as read. The round trips stamped before the first reading (by this
   * machine's clock) are stamped again by it: a target a minute ahead would otherwise show the
   * probe's first answers a minute early, across a window's boundary they never crossed. A later
   * reading with another offset starts a new epoch, since times across a moved clock do not compare.
   */
  adoptClock(offsetMs: number): void {
    if (!this.clockSynced) {
      const shift = offsetMs - this.clockOffsetMs;
      for (const entry of this.timeline) {
        entry.sentAt = Math.round(entry.sentAt + shift);
        entry.answeredAt = Math.round(entry.answeredAt + shift);
      }
      this.clockSynced = true;
    } else if (offsetMs !== this.clockOffsetMs) this.clockEpoch += 1;
    this.clockOffsetMs = offsetMs;
  }

  now(): number {
    return Math.round(Date.now() + this.clockOffsetMs);
  }

  /** Requests of the budget kept for the end of the run (holdBack), until released. */
  private heldBack = 0;

  /**
   * Keeps `requests` of the budget (--max-requests) for the end of the run, so that the phases
   * before it, which may spend what is left (the exploration), leave the end's judgements theirs.
   */
  holdBack(requests: number): void {
    this.heldBack = Math.max(0, Math.min(requests, this.maxRequests - this.requests));
  }

  /** The held-back requests may be spent from now on. */
  releaseHeldBack(): void {
    this.heldBack = 0;
  }

  remaining(): number {
    return Math.max(0, this.maxRequests - this.heldBack - this.requests);
  }

  /** Whether a weight-aware caller may still spend `fraction` of the per-minute request weight. */
  weightBelow(fraction: number): boolean {
    return this.weightLimit === undefined || this.usedWeight < this.weightLimit * fraction;
  }

  build(plan: RequestPlan): WireRequest {
    return buildRequest(plan, this.buildContext);
  }

  checkInterrupted(): void {
    if (this.options.signal?.aborted) throw new InterruptedError("interrupted");
  }

  async call(plan: RequestPlan, label: string, options: CallOptions = {}): Promise<RoundTrip> {
    if (!options.essential) {
      this.checkInterrupted();
      if (this.requests >= this.maxRequests - this.heldBack)
        throw new BudgetExhausted(
          `--max-requests ${this.maxRequests} reached${this.heldBack > 0 ? ` (${this.heldBack} kept for the end of the run)` : ""}`,
        );
    }
    const signal = options.essential ? options.signal : this.options.signal;
    const paced = this.pacedRequest(plan);
    const permit = options.unpaced ? undefined : await this.acquire(paced, signal);
    this.requests += 1;
    this.requestCounts.set(plan.op.operationId, (this.requestCounts.get(plan.op.operationId) ?? 0) + 1);
    // Built after the wait: a signed request's timestamp must not age in the pacer's queue.
    const request = this.build(plan);
    const sentAt = this.now();
    const result =
      options.connection === "own"
        ? await sendAlone(request, this.timeoutMs)
        : await send(request, this.timeoutMs, signal);
    const answeredAt = this.now();
    const answer = result.ok
      ? { status: result.response.status, headers: result.response.headers }
      : { status: 0 };
    if (permit) permit.settle(answer);
    else this.pacer.observe(answer, paced);
    const exchange: RoundTrip = { op: plan.op, case: label, plan, request, durationMs: result.durationMs };
    this.timeline.push({ exchange, sentAt, answeredAt, clock: this.clockEpoch });
    if (result.ok) {
      exchange.response = result.response;
      this.consecutiveTransportErrors = 0;
      const weight = Number(result.response.headers["x-mbx-used-weight-1m"]);
      if (Number.isFinite(weight)) this.usedWeight = weight;
    } else {
      exchange.error = result.error;
    }
    // An operation of another document (the sandbox's account views) is neither an operation the
    // target implements or not, nor a part of the contract's coverage.
    if (this.model.operation(plan.op.operationId) !== undefined) {
      this.implementation.see(exchange);
      this.coverage.see(exchange);
    }
    this.options.onExchange?.(exchange);
    if (!result.ok) {
      if (result.error.kind === "aborted") throw new InterruptedError("interrupted");
      if (options.responseChecks !== false)
        this.options.judge?.noAnswer(exchange, this, result.error.message);
      this.consecutiveTransportErrors += 1;
      if (!options.essential && this.consecutiveTransportErrors >= MAX_CONSECUTIVE_TRANSPORT_ERRORS) {
        await this.livenessCheck(plan.op, result.error);
      }
      return exchange;
    }
    if (options.responseChecks !== false) this.options.judge?.answer(exchange, this);
    if (!options.essential) await this.respectRateLimit(exchange);
    return exchange;
  }

  /**
   * Requests written together on one new connection (HTTP/1.1 pipelining), each paced first; the
   * exchange ends when the connection has sent nothing for --timeout with requests unanswered. A
   * probe of the connection: outside --max-requests and the run's count of requests, so that the
   * checks after it keep their budget. `shape`: in rounds, or each request in pieces.
   */
  async pipelined(
    plans: readonly RequestPlan[],
    shape: PipelineShape = {},
  ): Promise<{ requests: WireRequest[]; result: PipelinedResult }> {
    const { requests, result } = await this.sendPaced(
      plans,
      (built) => sendPipelined(built[0]!.url, built, this.timeoutMs, shape),
      (sent, i) => sent.answers[i],
    );
    return { requests, result };
  }

  /**
   * Each request on a connection of its own, all written at one moment once every connection is
   * open (sendTogether), each paced first; outside --max-requests, as `pipelined`.
   */
  async together(
    plans: readonly RequestPlan[],
  ): Promise<{ requests: WireRequest[]; results: PipelinedResult[] }> {
    const { requests, result } = await this.sendPaced(
      plans,
      (built) => sendTogether(built, this.timeoutMs),
      (sent, i) => sent[i]?.answers[0],
    );
    return { requests, results: result };
  }

  /**
   * Requests sent outside --max-requests by `send`, each paced first; each permit is settled
   * with its request's answer (`answerOf`), or none.
   */
  private async sendPaced<T>(
    plans: readonly RequestPlan[],
    send: (requests: WireRequest[]) => Promise<T>,
    answerOf: (result: T, index: number) => PipelinedAnswer | undefined,
  ): Promise<{ requests: WireRequest[]; result: T }> {
    this.checkInterrupted();
    const permits = [];
    for (const plan of plans) permits.push(await this.acquire(this.pacedRequest(plan), this.options.signal));
    const requests = plans.map((plan) => this.build(plan));
    const result = await send(requests);
    for (const [i, permit] of permits.entries()) {
      const answer = answerOf(result, i);
      permit.settle(answer ? { status: answer.status, headers: answer.headers } : { status: 0 });
    }
    return { requests, result };
  }

  /** What the pacer needs of a request: its weight by its parameters, its orders, its account. */
  private pacedRequest(plan: RequestPlan): PacedRequest {
    const params: Record<string, unknown> = {};
    for (const [name, text] of plan.params) {
      const json = plan.op.parameters.find((p) => p.name === name)?.encoding === "json";
      try {
        params[name] = json ? JSON.parse(text) : text;
      } catch {
        params[name] = text;
      }
    }
    const places = refusalFor(this.model.refusals, "too-many-orders", plan.op.operationId) !== undefined;
    const account = (plan.as ?? this.credentials)?.apiKey;
    return { weight: plan.op.weightRule, params, orders: places ? 1 : 0, ...(account ? { account } : {}) };
  }

  /** The weight of a request as the spec states it (x-weight and its tiers). */
  weightOf(plan: RequestPlan): number {
    const paced = this.pacedRequest(plan);
    return requestWeight(paced.weight, paced.params);
  }

  /**
   * Waits for the pacer. A hold longer than the run waits out (a long Retry-After, a ban) stops
   * the run rather than risk a longer ban.
   */
  private async acquire(paced: PacedRequest, signal: AbortSignal | undefined) {
    try {
      const permit = await this.pacer.acquire(paced, {
        ...(signal ? { signal } : {}),
        maxHoldMs: MAX_HOLD_MS,
      });
      this.pacedMs += permit.waitedMs;
      return permit;
    } catch (error) {
      if (error instanceof PacerWaitError)
        throw new ConnectionError(
          `the server ${error.reason === "ban" ? "banned this IP" : "rate-limited the run"} (${error.detail}); stopped rather than wait that long`,
        );
      if (signal?.aborted) throw new InterruptedError("interrupted");
      throw error;
    }
  }

  /**
   * A 418 (IP banned) stops the run; a 429 with a short Retry-After holds the pacer (every later
   * request waits for it), a longer one stops the run: sending on would get the tester's IP banned.
   */
  private async respectRateLimit(exchange: RoundTrip): Promise<void> {
    const response = exchange.response!;
    if (response.status !== 429 && response.status !== 418) return;
    this.rateLimitedCount += 1;
    const retryAfter = Number(response.headers["retry-after"]);
    const seconds = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
    if (response.status === 418) {
      throw new ConnectionError(
        `the server banned this IP (418${seconds !== undefined ? `, for ${seconds} s` : ""}); stopped`,
      );
    }
    if (seconds === undefined || seconds > MAX_RATE_LIMIT_PAUSE_S) {
      throw new ConnectionError(
        `the server rate-limited the run (429, Retry-After ${seconds ?? "absent"}); stopped to avoid an IP ban (lower --max-requests)`,
      );
    }
  }

  /**
   * After several requests in a row got no answer: if the server still answers a ping, only this
   * operation is given up; otherwise the run stops with a connection error.
   */
  private async livenessCheck(operation: ContractOperation, last: TransportError): Promise<never> {
    const ping = this.model.operation("ping");
    const alive =
      ping !== undefined &&
      ping.operationId !== operation.operationId &&
      (await send(this.build({ op: ping, params: [] }), this.timeoutMs, this.options.signal)).ok;
    this.consecutiveTransportErrors = 0;
    if (!alive) {
      throw new ConnectionError(
        `the server stopped answering (${MAX_CONSECUTIVE_TRANSPORT_ERRORS} requests in a row failed, and so did a ping; last: ${last.message})`,
      );
    }
    this.unresponsive.add(operation.operationId);
    throw new OperationUnresponsive(
      `${operation.operationId} stopped answering (${MAX_CONSECUTIVE_TRANSPORT_ERRORS} requests in a row: ${last.message}); its remaining requests were not sent`,
    );
  }

  /** The printable form of an exchange: secrets masked, body cut short. */
  record(exchange: RoundTrip): ExchangeRecord {
    const masked = maskRequest(exchange.request, this.model.signing, this.endpointHeaderNames);
    const secrets = [
      ...secretsOf(exchange.request, this.model.signing, this.endpointHeaderNames),
      ...this.ownSecrets(),
    ];
    const redact = (text: string) => redactSecrets(text, secrets);
    const record: ExchangeRecord = {
      case: exchange.case,
      request: masked,
      durationMs: Math.round(exchange.durationMs * 10) / 10,
    };
    if (exchange.response) {
      const text = exchange.response.bodyText;
      record.response = {
        status: exchange.response.status,
        contentType: exchange.response.contentType,
        headers: Object.fromEntries(
          Object.entries(exchange.response.headers).map(([name, value]) => [name, redact(value)]),
        ),
        bodyExcerpt: redact(
          text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}… (${text.length} chars)` : text,
        ),
      };
    }
    if (exchange.error) record.error = redact(exchange.error.message);
    return record;
  }

  /** The run's own secrets, masked wherever the report shows them. */
  private ownSecrets(): string[] {
    return [this.credentials, this.secondCredentials].flatMap((c) => (c ? [c.apiKey, c.apiSecret] : []));
  }

  pass(check: CheckName, exchange: RoundTrip | ContractOperation): void {
    this.recorder.pass(check, "op" in exchange ? exchange.op.operationId : exchange.operationId);
  }

  skip(check: CheckName, operationId: string, reason: string): void {
    this.recorder.skip(check, operationId, reason);
  }

  /** Failures of the operation not yet shown on a progress line; they count as shown from now on. */
  takeUnshownFailures(operationId: string): number {
    const total = this.failuresOf(operationId);
    const unshown = total - (this.failuresShown.get(operationId) ?? 0);
    this.failuresShown.set(operationId, total);
    return unshown;
  }

  requestsOf(operationId: string): number {
    return this.requestCounts.get(operationId) ?? 0;
  }

  failuresOf(operationId: string): number {
    return this.failureCounts.get(operationId) ?? 0;
  }

  fail(
    check: CheckName,
    exchange: RoundTrip,
    message: string,
    schemaPath?: string,
    evidence: Pick<Failure, "sequence"> = {},
  ): void {
    if (this.recorder.enabled(check)) {
      this.failureCounts.set(
        exchange.op.operationId,
        (this.failureCounts.get(exchange.op.operationId) ?? 0) + 1,
      );
    }
    this.recorder.fail({
      check,
      operationId: exchange.op.operationId,
      message: redactSecrets(message, [
        ...secretsOf(exchange.request, this.model.signing, this.endpointHeaderNames),
        ...this.ownSecrets(),
      ]),
      ...(schemaPath !== undefined ? { schemaPath } : {}),
      exchange: this.record(exchange),
      ...evidence,
    });
  }
}
