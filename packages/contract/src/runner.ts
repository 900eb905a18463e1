/**
 * runContract: resolves the target (embedded reference server, --base-url, or an Endpoint
 * record: run/target.ts), probes it (run/probe.ts), runs the passes over every operation of the
 * spec (run/read-only-pass.ts, run/trading-phase.ts, run/generated-phase.ts) and always cleans up
 * the orders it created (run/cleanup.ts), also after a failure or an interrupt.
 */
import { writeFileSync } from "node:fs";
import { loadOpenApi } from "@marketapi/spec";
import { appliesTo, CHECKS } from "./checks/index.js";
import { ConnectionError, InterruptedError, UsageError } from "./core/errors.js";
import {
  buildContractModel,
  type ContractModel,
  type ContractOperation,
  isSigned,
  isTrading,
} from "./core/operations.js";
import { DEFAULT_EXPLORE_BUDGET, explorationReserve } from "./explore/index.js";
import { failingTestVectors } from "./http/signing.js";
import { markPass, type RunContext, reportPass } from "./kit/context.js";
import { OrderLedger } from "./kit/ledger.js";
import { chooseSymbols, notTradingToProbe, planSymbol, type SymbolPlan, takesOrders } from "./kit/market.js";
import type { ValueContext } from "./kit/values.js";
import { answerJudge } from "./phases/answer.js";
import { behaviourPhase } from "./phases/behaviour.js";
import { cleanup } from "./phases/cleanup.js";
import { proveCredentials, requireCredentialsForTrading } from "./phases/credentials.js";
import { endPhase } from "./phases/end.js";
import { explorationPhase } from "./phases/exploration.js";
import { generatedPhase } from "./phases/generated-phase.js";
import { preferredSymbol, probe } from "./phases/probe.js";
import { readOnlyPass } from "./phases/read-only-pass.js";
import { findExistingOrder, tradingPhase } from "./phases/trading-phase.js";
import { CHECK_NAMES, type CheckName, type ContractResult } from "./result.js";
import type { ContractOptions } from "./run/contract-options.js";
import { readMemory } from "./run/memory.js";
import { selectOperations } from "./run/scope.js";
import { referenceTolerance, resolveTarget, type Target } from "./run/target.js";
import { collapseNotImplemented, withoutUnexercisedPasses } from "./session/not-implemented.js";
import { PassStopped, Session } from "./session/session.js";
import { Recorder } from "./session/verdicts.js";

export type { ContractOptions } from "./run/contract-options.js";

export const DEFAULT_MAX_REQUESTS = 2400;
/** Requests of the budget kept for the end of the run's judgements (the clock read again, the newest pages, the counters). */
const END_RESERVE = 40;
export const DEFAULT_TIMEOUT_MS = 5000;
/** Symbols the run trades at most (--max-symbols): every one the reference server lists. */
export const DEFAULT_MAX_SYMBOLS = 5;
/** Longest a whole run may take (--max-time), clean-up aside. */
export const DEFAULT_MAX_TIME_MS = 300_000;

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
    notImplemented: [],
    stats: { requests: 0, durationMs: performance.now() - started, requestsPerSecond: 0 },
    cleanup: { created: 0, cancelledAtEnd: 0, leftOpen: [] },
    summary: { passed: 0, failed: 0, skipped: 0 },
  };
}

async function operationPass(
  ctx: RunContext,
  operation: ContractOperation,
  stage: string,
  body: () => Promise<void>,
): Promise<void> {
  const mark = markPass(ctx, operation.operationId);
  let note: string | undefined;
  try {
    await body();
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    note = error.message;
    for (const check of CHECK_NAMES) ctx.session.recorder.skip(check, operation.operationId, note);
  }
  reportPass(ctx, mark, stage, note);
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

  let model: ContractModel;
  try {
    model = buildContractModel(options.spec ?? loadOpenApi());
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
  let selected: ContractOperation[];
  try {
    selected = selectOperations(model.operations, options.include, options.exclude);
  } catch (error) {
    return { ...result, exitCode: 2, error: { kind: "usage", message: (error as Error).message } };
  }
  result.operations = selected.map((o) => o.operationId);

  let target: Target;
  try {
    target = await resolveTarget(options, model);
    requireCredentialsForTrading(
      options.allowTrading === true && target.kind !== "embedded",
      (target.credentials?.apiSecret ?? "") !== "",
    );
    if (options.remember !== undefined && !target.trading)
      throw new UsageError("--remember needs a run that trades (--allow-trading, with credentials)");
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

  const recorder = new Recorder(checks, result.operations, CHECK_NAMES);
  const maxTimeMs = options.maxTimeMs ?? DEFAULT_MAX_TIME_MS;
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(() => deadline.abort(), maxTimeMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const ledger = new OrderLedger();
  const session = new Session({
    model,
    baseUrl: target.baseUrl,
    headers: target.headers,
    ...(target.credentials ? { credentials: target.credentials } : {}),
    ...(target.second ? { secondCredentials: target.second } : {}),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRequests: options.maxRequests ?? DEFAULT_MAX_REQUESTS,
    recorder,
    judge: answerJudge,
    signal,
    onExchange: (exchange) => {
      ledger.observe(exchange);
      options.onExchange?.(exchange);
    },
  });
  /** Start-up (probe, credentials) until the checks begin: an error there ends the run before any verdict. */
  let stage: "start-up" | "checks" = "start-up";
  let plans: SymbolPlan[] = [];
  try {
    progress({
      type: "stage",
      message: `target ${target.label ? `${target.label} at ` : ""}${target.baseUrl}; seed ${seed}`,
    });
    const { market, references, clock } = await probe(session, target.baseUrl).catch((error: unknown) => {
      // An operation that stops answering during the probe is the server's fault, not a crash.
      if (error instanceof PassStopped) throw new ConnectionError(`start-up probe: ${error.message}`);
      throw error;
    });
    const fallbackSymbol = preferredSymbol(model) ?? "BTCUSDT";
    const credentials = await proveCredentials(session, {
      symbols: [fallbackSymbol],
      symbol: fallbackSymbol,
      horizon: 0,
    });
    plans = chooseSymbols(market, fallbackSymbol, options.maxSymbols ?? DEFAULT_MAX_SYMBOLS).map((r) =>
      planSymbol(r, references.get(r.symbol)),
    );
    const rules = plans[0]?.rules;
    const listed = market.symbols.filter(takesOrders).map((s) => s.symbol);
    const values: ValueContext = {
      symbols: listed.length > 0 ? listed : [rules?.symbol ?? fallbackSymbol],
      symbol: rules?.symbol ?? fallbackSymbol,
      horizon: (Math.floor(session.now() / 86_400_000) + 1) * 86_400_000,
    };
    const farBuy = plans[0]?.farBuy ?? { reason: "exchangeInfo lists no symbol" };
    if (rules)
      session.coverage.explainUnlisted(
        "new_order",
        "type",
        rules.orderTypes,
        `exchangeInfo's orderTypes for ${rules.symbol}`,
      );
    const ctx: RunContext = {
      session,
      ledger,
      seed,
      trading: target.trading,
      market,
      rules,
      farBuy,
      symbols: plans,
      notTrading: notTradingToProbe(market).map((r) => planSymbol(r, references.get(r.symbol))),
      values,
      ...(target.embedded || options.referenceExtras ? { tolerates: await referenceTolerance() } : {}),
      ...(clock ? { clock } : {}),
      ...(credentials ? { credentials } : {}),
      exploreBudget: options.exploreBudget ?? DEFAULT_EXPLORE_BUDGET,
      ...(target.second ? { second: target.second } : {}),
      movePrices:
        target.trading &&
        (options.movePrices ?? (target.kind === "embedded" || options.referenceExtras === true)),
      load: options.load === true,
      progress,
    };
    progress({
      type: "stage",
      message: `${listed.length} symbols listed; testing with ${plans.map((p) => p.rules.symbol).join(", ") || values.symbol}; ${clock?.note ?? "no server_time: signing uses this machine's clock"}`,
    });
    stage = "checks";
    // A small budget (--max-requests under ten times the reserve) is spent as it comes, but for
    // the exploration's share.
    const endReserve = session.maxRequests >= 10 * END_RESERVE ? END_RESERVE : 0;
    session.holdBack(endReserve + explorationReserve(ctx));

    const operations = selected;
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
    skipNotApplicable(recorder, operations, model);
    session.holdBack(endReserve);
    const exploration = await explorationPhase(ctx);
    if (exploration) result.exploration = exploration;
    await generatedPhase(ctx, operations);
    await endPhase(ctx);
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
    if (result.error && stage === "start-up") result.error.during = "start-up";
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
    if (options.remember !== undefined && result.error === undefined)
      result.error = await remember(session, target, plans, options.remember);
    await target.embedded?.close().catch(() => {});
  }

  result.notImplemented = session.implementation.notImplemented();
  // Failures recorded after an operation's last progress line (the end-of-run clock read, the
  // clean-up) get a line of their own: the lines add up to the verdicts below.
  const absent = new Set(result.notImplemented.map((n) => n.operationId));
  for (const operationId of result.operations) {
    if (absent.has(operationId)) continue;
    const failures = session.takeUnshownFailures(operationId);
    if (failures > 0)
      progress({ type: "operation", operationId, stage: "end of run", requests: 0, failures });
  }
  result.cells = withoutUnexercisedPasses(collapseNotImplemented(recorder.result(), absent), (operationId) =>
    session.requestsOf(operationId),
  );
  result.coverage = session.coverage.report(result.operations, result.cells);
  const durationMs = performance.now() - started;
  result.stats = {
    requests: session.requests,
    durationMs,
    requestsPerSecond: durationMs > 0 ? session.requests / (durationMs / 1000) : 0,
    pacedMs: Math.round(session.pacedMs),
    // ORDERS limits are counted per account: one line per announced limit, not per account.
    pacedBy: [
      ...new Set(
        session.pacer
          .snapshot()
          .limits.map((l) => `${l.limit} ${l.rateLimitType} per ${l.intervalNum} ${l.interval}`),
      ),
    ],
    rateLimited: session.rateLimitedCount,
    ...(session.rateLimitsNote ? { rateLimitsNote: session.rateLimitsNote } : {}),
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
    result.error?.kind === "interrupted"
      ? 130
      : result.error
        ? 2
        : result.summary.failed > 0 || result.notImplemented.length > 0
          ? 1
          : 0;
  return result;
}

/**
 * --remember FILE: what the run left and a client can read back, written after the clean-up. A
 * run that traded nothing, or could not read it, has nothing to remember: said as an error.
 */
async function remember(
  session: Session,
  target: Target,
  plans: readonly SymbolPlan[],
  file: string,
): Promise<ContractResult["error"]> {
  if (!target.trading || !session.canSign)
    return {
      kind: "usage",
      message: "--remember needs a run that trades (--allow-trading, with credentials)",
    };
  if (plans.length === 0) return { kind: "connection", message: "--remember: the run traded no symbol" };
  try {
    const memory = await readMemory(
      session,
      target.baseUrl,
      plans.map((p) => ({
        symbol: p.rules.symbol,
        baseAsset: p.rules.baseAsset,
        quoteAsset: p.rules.quoteAsset,
      })),
    );
    writeFileSync(file, `${JSON.stringify(memory, null, 1)}\n`);
    return undefined;
  } catch (error) {
    return { kind: "internal", message: `--remember ${file}: ${(error as Error).message}` };
  }
}

/** A skipped cell for every operation a check does not apply to, saying why (ContractCheck.notApplicable). */
function skipNotApplicable(
  recorder: Recorder,
  operations: readonly ContractOperation[],
  model: ContractModel,
): void {
  for (const check of CHECKS)
    for (const operation of operations)
      if (!appliesTo(check, operation, model))
        recorder.skip(check.name, operation.operationId, check.notApplicable ?? "does not apply");
}

/** An unexpected error as one line (its name and message; never a stack trace). */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s*\n\s*/g, " ").slice(0, 500);
}
