/**
 * The request pipeline: route → read parameters → count weight (429, 418) → time unit →
 * authenticate → split off the live-API extras → validate (@marketapi/validators) → handle →
 * answer. Every failure becomes `{ code, msg }` with the API's status; an unexpected exception is
 * a logged 500 (-1000), never a crash.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Exchange } from "../engine/index.js";
import { ApiError, storageUnavailable, UNKNOWN_ERROR_MSG } from "../errors.js";
import type { Logger } from "../logger.js";
import { AnswerCache, type CachedAnswer } from "./answer-cache.js";
import type { ApiDescription, ServerOperation } from "./api.js";
import { authenticate, type KeyRing } from "./auth.js";
import { checkContentType, hasBody, readBody } from "./body.js";
import { createHandlers, type Handler, JsonText, VersionedJson } from "./handlers.js";
import { splitExtras } from "./live-extras.js";
import { headerParams, type RequestParams, readParams } from "./params.js";
import { protocolFault } from "./protocol.js";
import { type OrderCounts, type RateLimiter, requestWeight, weightHeaders } from "./rate-limits.js";
import { Router } from "./router.js";
import { inMicroseconds, type TimeUnit, timeUnitOf } from "./time-unit.js";
import { writeAtTurnEnd, writeWaitingOn } from "./turn-end.js";
import { validateParams } from "./validation.js";

export interface PipelineLimits {
  /** Largest accepted form body, in bytes. */
  maxBodyBytes: number;
  /** Most parameters one request may carry. */
  maxParams: number;
}

export interface PipelineDeps {
  readonly api: ApiDescription;
  readonly exchange: Exchange;
  readonly keys: KeyRing;
  readonly rateLimiter: RateLimiter;
  readonly limits: PipelineLimits;
  readonly now: () => number;
  readonly logger: Logger;
  /**
   * The state database, when there is one: a request that changes the exchange (class `trade`) is
   * refused while it cannot be written, and answered only once its changes are committed. Any
   * other answer also waits for the changes it may show, so a crash cannot take back what it said.
   */
  readonly storage?: Storage | undefined;
  /** recvWindow may carry up to three decimals (the live API's extra; off by default). */
  readonly recvWindowDecimals?: boolean;
  /** Where repeated market-data answers are kept (answer-cache.ts); a new one by default, false for none. */
  readonly answerCache?: AnswerCache | false;
}

export interface Storage {
  /** Throws (the reason) when changes cannot be kept. */
  assertWritable(): void;
  /** Resolves when everything changed so far is committed; rejects when it cannot be. */
  committed(): Promise<void>;
  /** Whether changes cannot be kept now (reads then show the committed state, reloaded). */
  readonly failed: boolean;
}

const JSON_TYPE = "application/json;charset=UTF-8";
/** Kept answers at least this long are written from their encoded bytes (see answerOk). */
const ENCODED_FROM_BYTES = 1024;

export function createPipeline(deps: PipelineDeps): RequestListener {
  const router = new Router(deps.api.operations);
  const handlers = createHandlers({ exchange: deps.exchange, rateLimiter: deps.rateLimiter });
  for (const operation of deps.api.operations) {
    if (!handlers[operation.operationId])
      throw new Error(`No handler for operation ${operation.operationId}`);
  }

  const answers = deps.answerCache === false ? undefined : (deps.answerCache ?? new AnswerCache());

  return (req, res) => {
    const now = deps.now();
    const ip = req.socket.remoteAddress ?? "";
    const fault = protocolFault(req, deps.api.apiKeyHeader);
    if (fault !== undefined) {
      answerError(deps, res, fault, spendQuietly(deps, ip, 1, now));
      return;
    }
    const cached = answers?.lookup(req);
    if (cached !== undefined) {
      serveCached(deps, res, cached, ip, now);
      return;
    }
    let operation: ServerOperation;
    let query: string;
    try {
      const target = splitTarget(req.url ?? "/");
      operation = router.route(req.method ?? "", target.path);
      query = target.query;
    } catch (error) {
      answerError(deps, res, error, spendQuietly(deps, ip, 1, now));
      return;
    }
    const serve = (body: string, bodyError?: unknown) =>
      serveOperation(deps, handlers, answers, { req, res, operation, query, body, bodyError, ip, now });
    if (operation.acceptsFormBody && hasBody(req)) {
      readBody(req, res, deps.limits.maxBodyBytes, serve);
    } else {
      serve("");
    }
  };
}

interface ReceivedRequest {
  req: IncomingMessage;
  res: ServerResponse;
  operation: ServerOperation;
  query: string;
  body: string;
  bodyError: unknown;
  ip: string;
  now: number;
}

function serveOperation(
  deps: PipelineDeps,
  handlers: Readonly<Record<string, Handler>>,
  answers: AnswerCache | undefined,
  x: ReceivedRequest,
): void {
  const read = readRequestParams(deps, x);
  let usedWeight: number | undefined;
  try {
    const requestedWeight = requestWeight(x.operation, read.params);
    usedWeight = deps.rateLimiter.spendWeight(x.ip, requestedWeight, x.now);
    if (read.params === undefined) throw read.error;
    const { body, orderCounts, unit } = execute(deps, handlers, x, read.params);
    answers?.remember(x.req, x.operation, requestedWeight, body);
    const weight = usedWeight;
    const wire = unit === "MICROSECOND" ? inUnit(body, unit) : body;
    const respond = () => {
      try {
        answerOk(x.res, wire, weight, orderCounts);
      } catch (error) {
        answerError(deps, x.res, error, weight);
      }
    };
    if (deps.storage && (x.operation.authClass === "trade" || !deps.storage.failed)) {
      // Acknowledged only once committed: a crash before that loses nothing that was confirmed.
      // The commit releases the answers of a whole batch together, so they need no turn-end wait.
      deps.storage
        .committed()
        .then(respond, (error: unknown) => answerError(deps, x.res, storageFault(error), weight));
    } else {
      writeAtTurnEnd(x.req.socket, respond);
    }
  } catch (error) {
    answerError(deps, x.res, storageFault(error), usedWeight ?? deps.rateLimiter.usedWeight(x.ip, x.now));
  }
}

/**
 * A kept market-data answer (answer-cache.ts): what serveOperation does for it once parsed and
 * validated. The weight is counted (429, 418), the 200 carries the same headers, and with a state
 * database it waits for the commit of what it may show.
 */
function serveCached(
  deps: PipelineDeps,
  res: ServerResponse,
  cached: CachedAnswer,
  ip: string,
  now: number,
): void {
  let weight: number;
  try {
    weight = deps.rateLimiter.spendWeight(ip, cached.weight, now);
  } catch (error) {
    answerError(deps, res, error, deps.rateLimiter.usedWeight(ip, now));
    return;
  }
  if (deps.storage && !deps.storage.failed) {
    deps.storage.committed().then(
      () => answerOk(res, cached.body, weight, undefined),
      (error: unknown) => answerError(deps, res, storageFault(error), weight),
    );
  } else {
    // At once, not at the turn's end (turn-end.ts): a kept answer costs the server about what
    // reading it costs the client, so held back the server would sleep while the client reads,
    // and the wake-ups would only change sides (ticker/price: 11.2 → 17.1 µs per request).
    answerOk(res, cached.body, weight, undefined);
  }
}

/** A failure of the state database as the API answers it (other errors pass unchanged). */
function storageFault(error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== "StorageFailure") return error;
  return storageUnavailable((error as Error & { reason: string }).reason);
}

/** The parameters, or why they could not be read (the weight is counted either way). */
function readRequestParams(
  deps: PipelineDeps,
  x: ReceivedRequest,
): { params?: RequestParams; error?: unknown } {
  if (x.bodyError !== undefined) return { error: x.bodyError };
  try {
    checkContentType(x.req, x.body);
    return {
      params: readParams(x.query, x.body, deps.limits.maxParams, deps.api.signing.signatureParameter),
    };
  } catch (error) {
    return { error };
  }
}

/** Authenticates, validates and runs the operation: the 200 body and its extra headers. */
function execute(
  deps: PipelineDeps,
  handlers: Readonly<Record<string, Handler>>,
  x: ReceivedRequest,
  params: RequestParams,
): { body: unknown; orderCounts: OrderCounts | undefined; unit: TimeUnit } {
  const { operation, now } = x;
  const headerKey = x.req.headers[deps.api.apiKeyHeader];
  const apiKeyHeader = typeof headerKey === "string" ? headerKey : undefined;
  const accountId =
    authenticate(deps.keys, deps.api.signing, {
      operation,
      apiKeyHeader,
      params,
      now,
      recvWindowDecimals: deps.recvWindowDecimals === true,
      epochTime: deps.api.epochTime,
    }) ?? "";
  const { declared, extras } = splitExtras(operation, params.values, params.sentCount);
  const headers = headerParams(operation, x.req.headers);
  if (headers !== undefined) for (const [name, value] of headers) declared.set(name, value);
  const checked = validateParams(operation, declared);
  const timeUnit = timeUnitOf(checked, operation);
  const isNewOrder = operation.operationId === "new_order";
  if (isNewOrder) deps.rateLimiter.checkOrderRate(accountId, now);
  if (operation.authClass === "trade") deps.storage?.assertWritable();
  const handler = handlers[operation.operationId] as Handler;
  const body = handler({
    params: checked,
    text: declared,
    extras,
    accountId,
    now,
    timeUnit,
    epochTime: deps.api.epochTime,
  });
  return {
    body,
    orderCounts: isNewOrder ? deps.rateLimiter.countOrder(accountId, now) : undefined,
    unit: timeUnit,
  };
}

/** Counts weight for a request that failed before its operation was known; never throws. */
function spendQuietly(deps: PipelineDeps, ip: string, weight: number, now: number): number {
  try {
    return deps.rateLimiter.spendWeight(ip, weight, now);
  } catch {
    return deps.rateLimiter.usedWeight(ip, now);
  }
}

/** "/api/v3/depth?symbol=X" → path and raw query; absolute-form targets lose their origin. */
export function splitTarget(url: string): { path: string; query: string } {
  let target = url;
  if (!target.startsWith("/")) {
    const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i.exec(target);
    target = origin ? target.slice(origin[0].length) : target;
  }
  const hash = target.indexOf("#");
  if (hash >= 0) target = target.slice(0, hash);
  const question = target.indexOf("?");
  if (question < 0) return { path: target === "" ? "/" : target, query: "" };
  return { path: target.slice(0, question), query: target.slice(question + 1) };
}

/**
 * A 200: the same headers, in the same order, as `answer` with the weight headers and then the
 * order counts, written as a flat list (no header object is built, spread or walked per request).
 */
function answerOk(
  res: ServerResponse,
  body: unknown,
  usedWeight: number,
  orderCounts: OrderCounts | undefined,
): void {
  // A connection dropped since (backpressure.ts) closes only after this turn: nothing to write.
  if (res.headersSent || res.destroyed || res.req.socket.destroyed) return;
  writeWaitingOn(res.req.socket);
  let text: string | Buffer;
  let length: number;
  if (body instanceof JsonText) {
    length = body.byteLength;
    // A kept body of some size goes out as its bytes, encoded once (not per answer); a small one
    // is cheaper as text, which Node joins to the headers in one write.
    text = length >= ENCODED_FROM_BYTES && body instanceof VersionedJson ? body.encoded : body.text;
  } else {
    text = JSON.stringify(body);
    length = Buffer.byteLength(text);
  }
  const weight = String(usedWeight);
  const headers = [
    "Content-Type",
    JSON_TYPE,
    "Content-Length",
    String(length),
    "X-MBX-USED-WEIGHT-1M",
    weight,
    "X-MBX-USED-WEIGHT",
    weight,
  ];
  if (orderCounts !== undefined) {
    headers.push(
      "X-MBX-ORDER-COUNT-10S",
      String(orderCounts.tenSeconds),
      "X-MBX-ORDER-COUNT-1D",
      String(orderCounts.day),
    );
  }
  res.writeHead(200, headers);
  res.end(text);
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed || res.req.socket.destroyed) return;
  writeWaitingOn(res.req.socket);
  const text = body instanceof JsonText ? body.text : JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": JSON_TYPE,
    "Content-Length": String(body instanceof JsonText ? body.byteLength : Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** A body with its time fields in the unit the request asked for (X-MBX-TIME-UNIT). */
function inUnit(body: unknown, unit: TimeUnit): unknown {
  if (unit === "MILLISECOND") return body;
  return inMicroseconds(body instanceof JsonText ? JSON.parse(body.text) : body);
}

function answerError(deps: PipelineDeps, res: ServerResponse, error: unknown, usedWeight: number): void {
  const headers = weightHeaders(usedWeight);
  if (error instanceof ApiError) {
    // A banned client gets its one answer and the connection closes (see backpressure.ts).
    const closing: Record<string, string> = error.httpStatus === 418 ? { Connection: "close" } : {};
    answer(
      res,
      error.httpStatus,
      { code: error.code, msg: error.msg },
      { ...headers, ...error.headers, ...closing },
    );
  } else {
    deps.logger.error("Unexpected error while serving a request:", error);
    answer(res, 500, { code: -1000, msg: UNKNOWN_ERROR_MSG }, headers);
  }
}
