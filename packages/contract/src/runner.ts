/**
 * runContract: resolves the target (embedded reference server, --base-url, or an Endpoint
 * record), probes it, runs the phases over every operation of the spec and always cleans up the
 * orders it created, also after a failure or an interrupt.
 */
import { loadOpenApi } from "@marketapi/spec";
import { behaviourPhase } from "./checks/behaviour.js";
import {
  bodyObject,
  markPass,
  ok,
  type ProgressEvent,
  type RunContext,
  reportPass,
} from "./checks/context.js";
import { noDeclaredDefault } from "./checks/defaults.js";
import { generatedPhase } from "./checks/generated.js";
import { readOnlyPass } from "./checks/read-only.js";
import { LIFECYCLE_OPERATIONS, TradingSection } from "./checks/trading.js";
import { type EmbeddedServer, startEmbeddedServer } from "./embedded.js";
import { type EndpointTarget, endpointTarget, loadEndpointFile } from "./endpoint.js";
import { ConnectionError, InterruptedError, UsageError } from "./errors.js";
import { type Credentials, encodeParams } from "./http/request.js";
import { failingTestVectors } from "./http/signing.js";
import { type Market, pickSymbol, planFarBuy, readExchangeInfo, referencePriceOf } from "./market.js";
import { buildSpecModel, isSigned, isTrading, type OperationModel, type SpecModel } from "./operations.js";
import { OrderLedger } from "./orders.js";
import { CHECK_NAMES, type CheckName, type CleanupReport, type ContractResult, Recorder } from "./results.js";
import { PassStopped, type RoundTrip, Session } from "./session.js";
import type { ValueContext } from "./values.js";

export const DEFAULT_MAX_REQUESTS = 800;
export const DEFAULT_TIMEOUT_MS = 5000;
/** Longest a whole run may take (--max-time), clean-up aside. */
export const DEFAULT_MAX_TIME_MS = 300_000;

export interface ContractOptions {
  /** The server to test. Without it (and without `endpoint`) the reference server is started in-process. */
  baseUrl?: string;
  apiKey?: string;
  apiSecret?: string;
  /** A FHIR Endpoint record: a file path, or the parsed record. */
  endpoint?: string | Record<string, unknown>;
  /** Allow creating and cancelling orders (always allowed on the embedded server and test Endpoints). */
  allowTrading?: boolean;
  /**
   * The target is a marketapi reference server: values of declared parameters it accepts on
   * purpose, as the live API does (its README's live-API extras), are not sent as negative data.
   * Always on for the embedded server.
   */
  referenceExtras?: boolean;
  /** Run only these checks. */
  only?: readonly CheckName[];
  /** Seed of the generated values (random when absent; the result reports it). */
  seed?: number;
  /** Most requests the run sends (clean-up excluded). */
  maxRequests?: number;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
  /** The whole run stops after this long (default 300 s); the orders it created are still cancelled. */
  maxTimeMs?: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  onExchange?: (exchange: RoundTrip) => void;
  /** The clock an Endpoint's period is checked against (epoch ms). */
  now?: () => number;
  /** The OpenAPI document (default: @marketapi/spec's bundled one). */
  spec?: Record<string, unknown>;
}

interface Target {
  baseUrl: string;
  kind: ContractResult["target"]["kind"];
  label?: string;
  headers: Record<string, string>;
  trading: boolean;
  credentials?: Credentials;
  embedded?: EmbeddedServer;
}

function emptyResult(
  options: ContractOptions,
  seed: number,
  checks: CheckName[],
  started: number,
): ContractResult {
  return {
    exitCode: 0,
    target: {
      baseUrl: options.baseUrl ?? "",
      kind: options.endpoint ? "endpoint" : options.baseUrl ? "base-url" : "embedded",
    },
    trading: false,
    seed,
    maxRequests: options.maxRequests ?? DEFAULT_MAX_REQUESTS,
    checks,
    operations: [],
    cells: [],
    stats: { requests: 0, durationMs: performance.now() - started, requestsPerSecond: 0 },
    cleanup: { created: 0, cancelledAtEnd: 0, leftOpen: [] },
    summary: { passed: 0, failed: 0, skipped: 0 },
  };
}

function credentialsFrom(
  options: ContractOptions,
  endpoint: EndpointTarget | undefined,
  model: SpecModel,
): Credentials | undefined {
  let apiKey = options.apiKey;
  if (endpoint) {
    const keyHeader = Object.keys(endpoint.headers).find(
      (n) => n.toLowerCase() === model.signing.apiKeyHeader.toLowerCase(),
    );
    if (keyHeader) {
      apiKey ??= endpoint.headers[keyHeader];
      delete endpoint.headers[keyHeader];
    }
  }
  if (options.apiSecret !== undefined && apiKey === undefined) {
    throw new UsageError("--api-secret needs --api-key (or an X-MBX-APIKEY header in the Endpoint record)");
  }
  if (apiKey === undefined) return undefined;
  // With a key but no secret, market_data operations still run; signed ones are skipped.
  return { apiKey, apiSecret: options.apiSecret ?? "" };
}

async function resolveTarget(options: ContractOptions, model: SpecModel): Promise<Target> {
  const now = options.now?.() ?? Date.now();
  if (options.endpoint !== undefined) {
    if (options.baseUrl !== undefined) throw new UsageError("give either --base-url or --endpoint, not both");
    const endpoint =
      typeof options.endpoint === "string"
        ? loadEndpointFile(options.endpoint, now)
        : endpointTarget(options.endpoint, now);
    const credentials = credentialsFrom(options, endpoint, model);
    return {
      baseUrl: endpoint.baseUrl,
      kind: "endpoint",
      label: `${endpoint.label} (status ${endpoint.status})`,
      headers: endpoint.headers,
      trading: endpoint.trading || options.allowTrading === true,
      ...(credentials ? { credentials } : {}),
    };
  }
  if (options.baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new UsageError(`--base-url ${JSON.stringify(options.baseUrl)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new UsageError(`--base-url must be an http(s) URL, got ${options.baseUrl}`);
    }
    const credentials = credentialsFrom(options, undefined, model);
    return {
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      kind: "base-url",
      headers: {},
      trading: options.allowTrading === true,
      ...(credentials ? { credentials } : {}),
    };
  }
  const embedded = await startEmbeddedServer();
  return {
    baseUrl: embedded.url.replace(/\/+$/, ""),
    kind: "embedded",
    label: "reference server (embedded, demo account)",
    headers: {},
    trading: true,
    credentials:
      options.apiKey && options.apiSecret
        ? { apiKey: options.apiKey, apiSecret: options.apiSecret }
        : embedded.credentials,
    embedded,
  };
}

/** The reference server's documented widenings of declared parameters (loaded only when asked). */
async function referenceTolerance(): Promise<NonNullable<RunContext["tolerates"]>> {
  const { specWidening } = await import("@marketapi/reference-server");
  return (operationId, parameter, text) => {
    const widening = specWidening(operationId, parameter, text);
    return widening && `the reference server accepts it on purpose (${widening})`;
  };
}

function preferredSymbol(model: SpecModel): string | undefined {
  for (const operation of model.operations) {
    const symbol = operation.parameters.find((p) => p.name === "symbol" && typeof p.example === "string");
    if (symbol) return symbol.example as string;
  }
  return undefined;
}

/** ping, server_time, exchangeInfo and a ticker: reachability, clock offset, symbols and a price. */
async function probe(
  session: Session,
  baseUrl: string,
): Promise<{ market: Market; reference?: bigint | undefined }> {
  const { model } = session;
  const ping =
    model.operation("ping") ??
    model.operations.find(
      (o) => o.method === "GET" && o.authClass === "none" && !o.parameters.some((p) => p.required),
    );
  if (!ping) throw new UsageError("the spec has no operation to probe the server with");
  const first = await session.call({ op: ping, params: [] }, "probe: connectivity");
  if (first.error) throw new ConnectionError(`cannot reach ${baseUrl}: ${first.error.message}`);
  const response = first.response!;
  const where = `${ping.method} ${baseUrl}${ping.path}`;
  if (response.status === 404 || response.status === 405) {
    throw new ConnectionError(
      `${where} answered ${response.status}: is ${baseUrl} the base URL of the trading API?`,
    );
  }
  if (response.jsonError !== undefined) {
    const type = response.contentType || "no Content-Type";
    const excerpt = response.bodyText.slice(0, 80).replace(/\s+/g, " ");
    throw new ConnectionError(
      `${where} answered status ${response.status} with ${type} that is not JSON (${response.jsonError}${excerpt ? `: "${excerpt}"` : ""}); is ${baseUrl} the base URL of the trading API?`,
    );
  }

  const time = model.operation("server_time");
  if (time) {
    const sentAt = Date.now();
    const exchange = await session.call({ op: time, params: [] }, "probe: server time");
    const receivedAt = Date.now();
    const serverTime = bodyObject(exchange)?.serverTime;
    if (typeof serverTime === "number") session.clockOffsetMs = serverTime - (sentAt + receivedAt) / 2;
  }

  let market: Market = { symbols: [], weightLimit: undefined };
  const info = model.operation("exchange_info");
  if (info) {
    const exchange = await session.call({ op: info, params: [] }, "probe: exchange rules");
    if (ok(exchange)) market = readExchangeInfo(exchange.response?.json);
    session.weightLimit = market.weightLimit;
  }
  const symbol = pickSymbol(market, preferredSymbol(model));
  let reference: bigint | undefined;
  for (const id of ["order_book_ticker", "symbol_price_ticker", "current_average_price"]) {
    const ticker = model.operation(id);
    if (!ticker || !symbol || reference !== undefined) continue;
    const exchange = await session.call(
      { op: ticker, params: encodeParams(ticker, { symbol: symbol.symbol }) },
      "probe: market price",
    );
    if (ok(exchange)) reference = referencePriceOf(exchange.response?.json);
  }
  return { market, reference };
}

async function operationPass(
  ctx: RunContext,
  operation: OperationModel,
  stage: string,
  body: () => Promise<void>,
): Promise<void> {
  const mark = markPass(ctx, operation.id);
  let note: string | undefined;
  try {
    await body();
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    note = error.message;
    for (const check of CHECK_NAMES) ctx.session.recorder.skip(check, operation.id, note);
  }
  reportPass(ctx, mark, stage, note);
}

async function findExistingOrder(ctx: RunContext): Promise<void> {
  const all = ctx.session.model.operation("all_orders");
  if (!all || !ctx.session.canSign || ctx.values.orderId !== undefined) return;
  const exchange = await ctx.session.call(
    { op: all, params: encodeParams(all, { symbol: ctx.values.symbol }) },
    "setup: an existing order of the account",
  );
  const orders = Array.isArray(exchange.response?.json)
    ? (exchange.response?.json as Record<string, unknown>[])
    : [];
  const last = orders.at(-1);
  if (last && typeof last.orderId === "number") {
    ctx.values.orderId = last.orderId;
    if (typeof last.clientOrderId === "string") ctx.values.clientOrderId = last.clientOrderId;
  }
}

interface TradingOutcome {
  /** Why trading operations were not exercised. */
  reason?: string;
  /** Cancels the order kept open for the user_data pass. */
  finish?: () => Promise<void>;
}

async function tradingPhase(ctx: RunContext, recorderOps: OperationModel[]): Promise<TradingOutcome> {
  const { session } = ctx;
  const section = TradingSection.create(ctx);
  const tradingOps = recorderOps.filter(isTrading);
  if ("reason" in section) {
    for (const operation of tradingOps) {
      for (const check of CHECK_NAMES) session.recorder.skip(check, operation.id, section.reason);
    }
    for (const id of LIFECYCLE_OPERATIONS) session.recorder.skip("order_lifecycle", id, section.reason);
    ctx.progress({ type: "stage", message: `trading operations skipped: ${section.reason}` });
    return { reason: section.reason };
  }
  const far = ctx.farBuy as { price: string; quantity: string };
  ctx.progress({
    type: "stage",
    message: `order lifecycle on ${ctx.values.symbol}: LIMIT BUY ${far.quantity} @ ${far.price} (far below the market; cancelled afterwards)`,
  });
  const marks = tradingOps.map((o) => markPass(ctx, o.id));
  let note: string | undefined;
  const outcome: TradingOutcome = {};
  try {
    if (await section.lifecycle()) {
      const open = await section.variants();
      await section.newOrderProbes();
      await section.cancelOrderProbes(open[0], open[1]);
      await section.cancelAll(open.slice(1));
      const resting = await section.restingOrder();
      if (resting) {
        ctx.values.orderId = resting.orderId;
        ctx.values.clientOrderId = resting.clientOrderId;
        outcome.finish = () => section.cancelResting(resting);
      }
    }
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    note = `${error.message}; the rest of the trading checks was not sent`;
    for (const operation of tradingOps)
      for (const check of CHECK_NAMES) session.recorder.skip(check, operation.id, note);
  }
  for (const operation of tradingOps) if (!operation.variantBy) noDeclaredDefault(ctx, operation);
  for (const mark of marks) reportPass(ctx, mark, "trading", note);
  return outcome;
}

const STILL_OPEN = ["NEW", "PARTIALLY_FILLED", "PENDING_NEW"];

/**
 * Cancels every order of the ledger not known to be closed. When a cancel is refused, the order
 * may never have been created: query_order, then the open-order list of its symbol, decide.
 */
async function cleanup(session: Session, ledger: OrderLedger): Promise<CleanupReport> {
  const report: CleanupReport = { created: ledger.placedCount, cancelledAtEnd: 0, leftOpen: [] };
  const cancel = session.model.operation("cancel_order");
  const query = session.model.operation("query_order");
  const openOrders = session.model.operation("open_orders");
  const essential = { essential: true, responseChecks: false } as const;
  const openLists = new Map<string, Record<string, unknown>[] | undefined>();
  const openList = async (symbol: string) => {
    if (!openLists.has(symbol) && openOrders) {
      const exchange = await session.call(
        { op: openOrders, params: encodeParams(openOrders, { symbol }) },
        "clean-up: open_orders",
        essential,
      );
      const json = exchange.response?.json;
      openLists.set(
        symbol,
        ok(exchange) && Array.isArray(json) ? (json as Record<string, unknown>[]) : undefined,
      );
    }
    return openLists.get(symbol);
  };
  for (const entry of ledger.outstanding()) {
    const label = `${entry.clientOrderId} on ${entry.symbol}`;
    if (!cancel || !session.canSign) {
      report.leftOpen.push(label);
      continue;
    }
    const values = { symbol: entry.symbol, origClientOrderId: entry.clientOrderId };
    const cancelled = await session.call(
      { op: cancel, params: encodeParams(cancel, values) },
      "clean-up: cancel_order",
      essential,
    );
    if (ok(cancelled)) {
      ledger.closed(entry.clientOrderId);
      report.cancelledAtEnd += 1;
      continue;
    }
    if (query) {
      const found = await session.call(
        { op: query, params: encodeParams(query, values) },
        "clean-up: query_order",
        essential,
      );
      const status = bodyObject(found)?.status;
      const unknown =
        found.response !== undefined && found.response.status >= 400 && found.response.status < 500;
      if (unknown || (ok(found) && typeof status === "string" && !STILL_OPEN.includes(status))) {
        ledger.closed(entry.clientOrderId);
        continue;
      }
    }
    const open = await openList(entry.symbol);
    if (open && !open.some((o) => o.clientOrderId === entry.clientOrderId)) {
      ledger.closed(entry.clientOrderId);
      continue;
    }
    report.leftOpen.push(label);
  }
  return report;
}

/**
 * Runs the contract checks against a server and returns the result; never throws for usage or
 * connection problems (they give exitCode 2 and `error`).
 */
export async function runContract(options: ContractOptions = {}): Promise<ContractResult> {
  const started = performance.now();
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const checks =
    options.only && options.only.length > 0
      ? CHECK_NAMES.filter((c) => options.only!.includes(c))
      : [...CHECK_NAMES];
  const result = emptyResult(options, seed, checks, started);
  const progress = options.onProgress ?? (() => {});

  let model: SpecModel;
  try {
    model = buildSpecModel(options.spec ?? loadOpenApi());
  } catch (error) {
    return {
      ...result,
      exitCode: 2,
      error: { kind: "internal", message: `cannot read the spec: ${(error as Error).message}` },
    };
  }
  const badVectors = failingTestVectors(model.signing);
  if (badVectors.length > 0) {
    return {
      ...result,
      exitCode: 2,
      error: {
        kind: "internal",
        message: `the signer does not reproduce x-signing test vectors: ${badVectors.join("; ")}`,
      },
    };
  }
  result.operations = model.operations.map((o) => o.id);

  let target: Target;
  try {
    target = await resolveTarget(options, model);
  } catch (error) {
    const kind = error instanceof UsageError ? "usage" : "connection";
    return { ...result, exitCode: 2, error: { kind, message: (error as Error).message } };
  }
  result.target = {
    baseUrl: target.baseUrl,
    kind: target.kind,
    ...(target.label ? { label: target.label } : {}),
  };
  result.trading = target.trading;

  const recorder = new Recorder(checks, result.operations);
  const maxTimeMs = options.maxTimeMs ?? DEFAULT_MAX_TIME_MS;
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(() => deadline.abort(), maxTimeMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const session = new Session({
    model,
    baseUrl: target.baseUrl,
    headers: target.headers,
    ...(target.credentials ? { credentials: target.credentials } : {}),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRequests: options.maxRequests ?? DEFAULT_MAX_REQUESTS,
    recorder,
    signal,
    ...(options.onExchange ? { onExchange: options.onExchange } : {}),
  });
  const ledger = new OrderLedger();
  try {
    progress({
      type: "stage",
      message: `target ${target.label ? `${target.label} at ` : ""}${target.baseUrl}; seed ${seed}`,
    });
    const { market, reference } = await probe(session, target.baseUrl).catch((error: unknown) => {
      // An operation that stops answering during the probe is the server's fault, not a crash.
      if (error instanceof PassStopped) throw new ConnectionError(`start-up probe: ${error.message}`);
      throw error;
    });
    const fallbackSymbol = preferredSymbol(model) ?? "BTCUSDT";
    const rules = pickSymbol(market, fallbackSymbol);
    const listed = market.symbols.filter((s) => s.status === "TRADING").map((s) => s.symbol);
    const values: ValueContext = {
      symbols: listed.length > 0 ? listed : [rules?.symbol ?? fallbackSymbol],
      symbol: rules?.symbol ?? fallbackSymbol,
      horizon: (Math.floor(session.now() / 86_400_000) + 1) * 86_400_000,
    };
    const farBuy =
      rules && reference !== undefined
        ? planFarBuy(rules, reference)
        : { reason: rules ? `no market price for ${rules.symbol}` : "exchangeInfo lists no symbol" };
    const ctx: RunContext = {
      session,
      ledger,
      seed,
      trading: target.trading,
      market,
      rules,
      farBuy,
      values,
      ...(target.embedded || options.referenceExtras ? { tolerates: await referenceTolerance() } : {}),
      progress,
    };
    progress({
      type: "stage",
      message: `${listed.length} symbols listed; testing with ${values.symbol}; clock offset ${Math.round(session.clockOffsetMs)} ms`,
    });

    const operations = model.operations;
    for (const operation of operations.filter((o) => !isTrading(o) && !isSigned(o))) {
      await operationPass(ctx, operation, "checks", () => readOnlyPass(ctx, operation));
    }
    const trading = await tradingPhase(ctx, operations);
    if (trading.reason) result.tradingNote = trading.reason;
    for (const operation of operations.filter((o) => isSigned(o) && !isTrading(o))) {
      await operationPass(ctx, operation, "checks", async () => {
        await findExistingOrder(ctx);
        await readOnlyPass(ctx, operation);
      });
    }
    await behaviourPhase(ctx, operations);
    await trading.finish?.();
    for (const operation of operations) {
      if (!(LIFECYCLE_OPERATIONS as readonly string[]).includes(operation.id)) {
        recorder.skip("order_lifecycle", operation.id, "not part of the order lifecycle");
      }
    }
    await generatedPhase(ctx, operations);
  } catch (error) {
    if (error instanceof ConnectionError) result.error = { kind: "connection", message: error.message };
    else if (error instanceof InterruptedError && deadline.signal.aborted && !options.signal?.aborted)
      result.error = {
        kind: "deadline",
        message: `--max-time ${maxTimeMs / 1000} s reached; the results are partial`,
      };
    else if (error instanceof InterruptedError)
      result.error = { kind: "interrupted", message: "interrupted; the results are partial" };
    else if (error instanceof UsageError) result.error = { kind: "usage", message: error.message };
    else result.error = { kind: "internal", message: oneLine(error) };
  } finally {
    clearTimeout(deadlineTimer);
    if (ledger.outstanding().length > 0) {
      progress({
        type: "stage",
        message: `clean-up: cancelling ${ledger.outstanding().length} order(s) this run created`,
      });
    }
    result.cleanup = await cleanup(session, ledger).catch((error: unknown) => ({
      created: ledger.placedCount,
      cancelledAtEnd: 0,
      leftOpen: [`clean-up failed: ${(error as Error).message}`],
    }));
    await target.embedded?.close().catch(() => {});
  }

  result.cells = recorder.result();
  const durationMs = performance.now() - started;
  result.stats = {
    requests: session.requests,
    durationMs,
    requestsPerSecond: durationMs > 0 ? session.requests / (durationMs / 1000) : 0,
  };
  result.summary = {
    passed: result.cells.filter((c) => c.status === "passed").length,
    failed: result.cells.filter((c) => c.status === "failed").length,
    skipped: result.cells.filter((c) => c.status === "skipped").length,
  };
  if (result.cleanup.leftOpen.length > 0) {
    result.error ??= {
      kind: "connection",
      message: `orders may still be open: ${result.cleanup.leftOpen.join(", ")}`,
    };
  }
  result.exitCode =
    result.error?.kind === "interrupted" ? 130 : result.error ? 2 : result.summary.failed > 0 ? 1 : 0;
  return result;
}

/** An unexpected error as one line (its name and message; never a stack trace). */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s*\n\s*/g, " ").slice(0, 500);
}
