/**
 * `marketapi-contract recall FILE`: after the target restarted, reads again everything a run left
 * and remembered (--remember FILE; run/memory.ts) and judges it (`persistence`,
 * run/persistence.ts): every remembered order found by orderId and by origClientOrderId with the
 * same fields, every trade in myTrades and in the trade list the same, the closed candles that
 * held them the same, the average price still that of the trades in its window, the balances the
 * same while nothing traded on the account since; with
 * --allow-trading, a far LIMIT BUY on each symbol, placed with the client order id of a remembered
 * closed order (which the spec lets a client reuse), gets an orderId above every remembered one
 * and is the order that id now finds, then is cancelled.
 */
import { readFileSync } from "node:fs";
import { EXIT, parseCommandLine, wholeNumberOption } from "@marketapi/command";
import { loadOpenApi } from "@marketapi/spec";
import { refusalFor } from "@marketapi/spec/model";
import { ConnectionError, UsageError } from "./core/errors.js";
import { buildContractModel } from "./core/operations.js";
import { bodyObject, describeAnswer, errorCode, ok } from "./kit/answers.js";
import { valueAt } from "./kit/behaviour-support.js";
import { farBuyOrder, planFarBuy } from "./kit/market.js";
import { judgeNewestPage, newestPageLimit, newestPageOf } from "./kit/newest-page.js";
import { tradeRows } from "./kit/relations-support.js";
import { measureProblems, measuresOf, recentWindowTrades } from "./kit/trade-windows.js";
import { probe } from "./phases/probe.js";
import { freshReads } from "./run/fresh-reads.js";
import {
  allOrders,
  balances,
  candlesOf,
  type Item,
  MEMORY_FORMAT,
  type Memory,
  myTrades,
  publicTrades,
  quietCall,
  quietSession,
  ReadFailure,
  read,
  type SymbolMemory,
  tickerLastId,
} from "./run/memory.js";
import {
  clientIdTargets,
  type Finding,
  isOpen,
  type Judgement,
  judgeClientIdLookup,
  judgeMemory,
  judgeOrder,
} from "./run/persistence.js";
import { judgeReset } from "./run/reset.js";
import { type AdminSurface, judgeSnapshots } from "./run/snapshots.js";
import { resolveTarget } from "./run/target.js";
import { DEFAULT_TIMEOUT_MS } from "./runner.js";
import type { Session } from "./session/session.js";

/** The check's name in the report. */
export const PERSISTENCE = "persistence";

export const RECALL_USAGE = `Usage: marketapi-contract recall FILE [--base-url URL | --endpoint FILE] [--api-key K --api-secret S]
                          [--allow-trading] [--admin-url URL --admin-token T [--allow-reset]]
                          [--timeout MS] [--json]
  FILE is what a run wrote with --remember FILE; run this after the target restarted. It reads
  back every remembered order (by orderId and origClientOrderId), trade, candle and balance and
  says what changed (check persistence); with --allow-trading it also places one far LIMIT BUY per
  symbol with a remembered client order id (ids never reused), and cancels it, and reads every
  paged list at once after bursts of orders (limits, cursors and windows hold before a commit).
  With a sandbox's admin surface (--admin-url and --admin-token, or MARKETAPI_ADMIN_URL and
  MARKETAPI_ADMIN_TOKEN) it takes a
  snapshot, trades after it, restores it and judges that everything is as it was at the snapshot,
  then deletes it (what the account did after the snapshot is undone). With --allow-reset too
  (or MARKETAPI_ALLOW_RESET=1), last, it resets the sandbox twice and judges the reset: the same
  exchange and start time each time, orders placed and an account added between the resets
  unknown after the second, rate-limit counts cleared, snapshots kept; a snapshot taken before
  the resets is then restored and deleted, so the sandbox ends as it was.
  Exit: 0 everything held, 1 something changed (the target's fault), 2 usage or an unreadable
  FILE, 3 the target could not be reached.
`;

export interface RecallResult {
  check: typeof PERSISTENCE;
  file: string;
  baseUrl: string;
  exitCode: 0 | 1 | 2 | 3;
  held: number;
  findings: Finding[];
  notes: string[];
  error?: string;
}

export interface RecallOptions {
  file: string;
  baseUrl?: string;
  endpoint?: string;
  apiKey?: string;
  apiSecret?: string;
  allowTrading?: boolean;
  /** A sandbox's admin surface: its snapshots are judged too. */
  admin?: AdminSurface;
  /** With `admin`: the sandbox's reset is judged too (destructive: it resets the sandbox, twice). */
  allowReset?: boolean;
  timeoutMs?: number;
  spec?: Record<string, unknown>;
}

/** Reads a record written by --remember, or says what is wrong with it (a usage error naming the path). */
export function loadMemory(file: string): Memory {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `${file}: cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not JSON (${(error as Error).message})`);
  }
  const memory = parsed as Partial<Memory>;
  if (
    memory?.format !== MEMORY_FORMAT ||
    !Array.isArray(memory.symbols) ||
    typeof memory.takenAt !== "number"
  )
    throw new UsageError(
      `${file}: not a record written by --remember (expected "format": "${MEMORY_FORMAT}")`,
    );
  return memory as Memory;
}

export function parseRecall(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): RecallOptions & { json: boolean } {
  const parsed = parseCommandLine(argv, OPTIONS);
  const v = parsed.values;
  if (parsed.positionals.length !== 1)
    throw new UsageError(
      parsed.positionals.length === 0
        ? "recall needs the FILE a run wrote with --remember"
        : `unexpected argument ${JSON.stringify(parsed.positionals[1])}`,
    );
  if (v["base-url"] === undefined && v.endpoint === undefined)
    throw new UsageError("recall needs the restarted target: --base-url URL or --endpoint FILE");
  const timeout = v.timeout === undefined ? undefined : wholeNumberOption("--timeout", v.timeout, 1);
  const adminUrl = v["admin-url"] ?? env.MARKETAPI_ADMIN_URL;
  const adminToken = v["admin-token"] ?? env.MARKETAPI_ADMIN_TOKEN;
  if (v["admin-token"] !== undefined && !adminUrl)
    throw new UsageError("--admin-token needs --admin-url (the sandbox's admin surface)");
  if (adminUrl && !adminToken)
    throw new UsageError(
      "--admin-url needs the admin surface's token: --admin-token T or MARKETAPI_ADMIN_TOKEN",
    );
  const allowReset = v["allow-reset"] === true || env.MARKETAPI_ALLOW_RESET === "1";
  if (v["allow-reset"] && !adminUrl)
    throw new UsageError("--allow-reset needs --admin-url (the sandbox's admin surface resets it)");
  if (adminUrl && !URL.canParse(adminUrl))
    throw new UsageError(`--admin-url takes a URL, got ${JSON.stringify(adminUrl)}`);
  const apiKey = v["api-key"] ?? env.MARKETAPI_API_KEY;
  const apiSecret = v["api-secret"] ?? env.MARKETAPI_API_SECRET;
  return {
    file: parsed.positionals[0]!,
    json: v.json === true,
    ...(v["base-url"] !== undefined ? { baseUrl: v["base-url"] } : {}),
    ...(v.endpoint !== undefined ? { endpoint: v.endpoint } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(apiSecret ? { apiSecret } : {}),
    ...(v["allow-trading"] ? { allowTrading: true } : {}),
    ...(adminUrl && adminToken ? { admin: { url: adminUrl, token: adminToken } } : {}),
    ...(adminUrl && allowReset ? { allowReset: true } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
  };
}

const OPTIONS = {
  "base-url": { type: "string" },
  endpoint: { type: "string" },
  "api-key": { type: "string" },
  "api-secret": { type: "string" },
  "allow-trading": { type: "boolean" },
  "admin-url": { type: "string" },
  "admin-token": { type: "string" },
  "allow-reset": { type: "boolean" },
  timeout: { type: "string" },
  json: { type: "boolean" },
} as const;

const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));

/** Reads one symbol's lists again, over the same windows as the record. */
async function readAgain(session: Session, was: SymbolMemory): Promise<SymbolMemory> {
  const { symbol } = was;
  const orders = await allOrders(session, symbol);
  const trades = was.trades === undefined ? undefined : await myTrades(session, symbol);
  const times = (was.trades ?? []).map((t) => num(t.time));
  const candles =
    was.candles.length > 0 && times.length > 0
      ? await candlesOf(session, symbol, Math.min(...times), Math.max(...times))
      : [];
  const lastId = was.tickerLastId === undefined ? undefined : await tickerLastId(session, symbol);
  return {
    symbol,
    orders,
    ...(trades ? { trades } : {}),
    publicTrades: await publicTrades(
      session,
      symbol,
      was.publicTrades.map((t) => num(t.id)),
    ),
    candles: candles ?? [],
    ...(lastId !== undefined ? { tickerLastId: lastId } : {}),
    floor: was.floor,
  };
}

/**
 * Every remembered order looked up alone, by orderId and by origClientOrderId, and the newest page
 * of all_orders (no cursor) holding as many as the account is known to have.
 */
async function lookups(session: Session, was: SymbolMemory): Promise<Judgement> {
  const op = session.model.operation("query_order");
  const out: Judgement = { findings: [], held: 0, notes: [] };
  if (!op) return { ...out, notes: ["the spec has no query_order: orders not looked up one by one"] };
  const query = async (values: Record<string, unknown>): Promise<Item | undefined> => {
    const exchange = await quietCall(session, op, values, "persistence: query_order");
    if (!exchange.response) throw new ReadFailure(`query_order: ${describeAnswer(exchange)}`);
    return ok(exchange) ? bodyObject(exchange) : undefined;
  };
  const record = (found: Finding[]) => {
    if (found.length === 0) out.held += 1;
    out.findings.push(...found);
  };
  for (const order of was.orders)
    record(
      judgeOrder(
        was.symbol,
        order,
        await query({ symbol: was.symbol, orderId: order.orderId }),
        "query_order by orderId",
      ),
    );
  const newest = session.model.operation("all_orders");
  const limit = newest && newestPageLimit(newest);
  if (newest && limit) {
    const answer = await quietCall(
      session,
      newest,
      { symbol: was.symbol, [newest.behaviour.limit!.parameter]: limit },
      "persistence: all_orders, the newest page",
    );
    const page = ok(answer) ? newestPageOf(newest, was.symbol, limit, answer.response?.json) : undefined;
    if (!page) throw new ReadFailure(`all_orders (newest): ${describeAnswer(answer)}`);
    const remembered = was.orders.map((o) => num(o.orderId));
    record(judgeNewestPage(page, remembered, "remembered"));
  }
  for (const order of clientIdTargets(was.orders))
    record(
      judgeClientIdLookup(
        was.symbol,
        order,
        await query({ symbol: was.symbol, origClientOrderId: order.clientOrderId }),
        was.floor.orderId,
      ),
    );
  return out;
}

/**
 * On each symbol a far LIMIT BUY with the client order id of the newest closed remembered order:
 * accepted (a closed order's id may be reused), its orderId above every remembered one, and the
 * order origClientOrderId now finds; then cancelled.
 */
async function newIds(
  session: Session,
  memory: Memory,
  market: Awaited<ReturnType<typeof probe>>,
): Promise<Judgement> {
  const out: Judgement = { findings: [], held: 0, notes: [] };
  const place = session.model.operation("new_order");
  const cancel = session.model.operation("cancel_order");
  const query = session.model.operation("query_order");
  if (!place || !cancel || !query)
    return { ...out, notes: ["the spec lacks new_order, cancel_order or query_order"] };
  const duplicate = refusalFor(session.model.refusals, "duplicate-client-order-id", "new_order");
  for (const was of memory.symbols) {
    const rules = market.market.symbols.find((s) => s.symbol === was.symbol);
    const reference = market.references.get(was.symbol);
    const far =
      rules && reference !== undefined ? planFarBuy(rules, reference) : { reason: "no rules or price" };
    if ("reason" in far) {
      out.notes.push(`${was.symbol}: no new order placed (${far.reason})`);
      continue;
    }
    // A client order id no remembered order still holds open: the spec lets it be reused.
    const reused = clientIdTargets(was.orders)
      .filter((o) => !isOpen(o))
      .at(-1)?.clientOrderId;
    const clientOrderId =
      typeof reused === "string" && reused !== "" ? reused : `recall-${Date.now().toString(36)}`;
    const subject = `${was.symbol} new order (clientOrderId ${JSON.stringify(clientOrderId)})`;
    const placed = await quietCall(
      session,
      place,
      { ...farBuyOrder(far), newClientOrderId: clientOrderId },
      "persistence: new order after the restart",
    );
    if (!ok(placed)) {
      if (typeof reused === "string" && duplicate && errorCode(placed) === duplicate.code)
        out.findings.push({
          subject,
          message: `refused as a duplicate (${describeAnswer(placed)}), but the order that had it is closed, and a closed order's client order id may be reused`,
        });
      else out.notes.push(`${subject}: not placed (${describeAnswer(placed)}); new ids not judged`);
      continue;
    }
    const orderId = num(bodyObject(placed)?.orderId);
    try {
      if (!(orderId > was.floor.orderId))
        out.findings.push({
          subject,
          message: `orderId ${orderId} is not above the highest remembered (${was.floor.orderId}): an id given again`,
        });
      else out.held += 1;
      if (typeof reused === "string") {
        const found = await quietCall(
          session,
          query,
          { symbol: was.symbol, origClientOrderId: clientOrderId },
          "persistence: the reused client order id",
        );
        const foundId = num(bodyObject(found)?.orderId);
        if (foundId !== orderId)
          out.findings.push({
            subject,
            message: `query_order by origClientOrderId finds ${ok(found) ? `order ${foundId}` : describeAnswer(found)}, not the open order ${orderId} that has it now`,
          });
        else out.held += 1;
      }
    } finally {
      const cancelled = await quietCall(
        session,
        cancel,
        { symbol: was.symbol, orderId },
        "persistence: cancel the new order",
      );
      if (!ok(cancelled))
        out.notes.push(`${subject}: order ${orderId} could not be cancelled (${describeAnswer(cancelled)})`);
    }
  }
  return out;
}

/**
 * Every trade window of the last `minutes` (x-relations tradeWindows, e.g. the average price) still
 * reports the measures of the trades in it after the restart, by the rules trade_statistics judges
 * a run's windows with (kit/trade-windows.ts): the window placed by server_time read before and
 * after the answer, and judged only when no trade lies where the two placements differ.
 */
async function tradeWindows(session: Session, memory: Memory): Promise<Judgement> {
  const out: Judgement = { findings: [], held: 0, notes: [] };
  const relations = session.model.relations;
  const source = relations?.trades && session.model.operation(relations.trades.operation);
  const time = session.model.operation("server_time");
  const windows = (relations?.tradeWindows ?? []).filter((w) => "minutes" in w.window);
  if (windows.length === 0) return out;
  if (!relations?.trades || !source || !time)
    return { ...out, notes: ["trade windows not judged: the spec lacks a trade source or server_time"] };
  const fields = relations.trades.fields;
  const page = source.behaviour.limit;
  const serverTime = async () =>
    num(((await read(session, time.operationId, {})) as Item | undefined)?.serverTime);
  for (const window of windows)
    for (const was of memory.symbols) {
      if (was.publicTrades.length === 0) continue;
      const { symbol } = was;
      const subject = `${symbol} ${window.operation}`;
      const from = await serverTime();
      const answer = await read(session, window.operation, { symbol });
      const to = await serverTime();
      const listed = await read(session, source.operationId, {
        symbol,
        ...(page ? { [page.parameter]: page.maximum } : {}),
      });
      const trades = tradeRows(listed, fields);
      const minutes = valueAt(answer, (window.window as { minutes: string }).minutes);
      if (!trades || typeof minutes !== "number" || !(minutes > 0)) {
        out.notes.push(
          `${subject}: not judged (${trades ? "the answer states no window" : "the trades could not be read"})`,
        );
        continue;
      }
      const { inside, edge } = recentWindowTrades(trades, { from, to }, minutes * 60_000);
      const whyNot = edge
        ? `trade ${edge.id} lies where the window's start could have been`
        : inside.length === 0
          ? "no trade in its window"
          : page && trades.length >= page.maximum && inside.length === trades.length
            ? `more than ${trades.length} trades in its window`
            : undefined;
      if (whyNot) {
        out.notes.push(`${subject}: ${window.name} not judged (${whyNot})`);
        continue;
      }
      const problems = measureProblems(
        window,
        answer,
        measuresOf(inside),
        `the ${inside.length} trade(s) of its window`,
      );
      for (const message of problems) out.findings.push({ subject, message: `${window.name}: ${message}` });
      out.held += Object.keys(window.measures).length - problems.length;
    }
  return out;
}

export async function runRecall(options: RecallOptions): Promise<RecallResult> {
  const result: RecallResult = {
    check: PERSISTENCE,
    file: options.file,
    baseUrl: options.baseUrl ?? "",
    exitCode: 0,
    held: 0,
    findings: [],
    notes: [],
  };
  let memory: Memory;
  const model = buildContractModel(options.spec ?? loadOpenApi());
  let session: Session;
  try {
    memory = loadMemory(options.file);
    const target = await resolveTarget(
      {
        ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
        ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.apiSecret ? { apiSecret: options.apiSecret } : {}),
        ...(options.allowTrading ? { allowTrading: true } : {}),
      },
      model,
    );
    result.baseUrl = target.baseUrl;
    if (!target.credentials?.apiSecret)
      throw new UsageError(
        "recall reads the account's orders: give --api-key and --api-secret (or MARKETAPI_API_KEY, MARKETAPI_API_SECRET)",
      );
    session = quietSession({
      model,
      baseUrl: target.baseUrl,
      headers: target.headers,
      credentials: target.credentials,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    const market = await probe(session, target.baseUrl);
    const after: Memory = {
      ...memory,
      takenAt: session.now(),
      symbols: [],
      notes: [],
    };
    for (const was of memory.symbols) after.symbols.push(await readAgain(session, was));
    if (memory.balances) {
      const held = await balances(session, new Set(Object.keys(memory.balances)));
      if (held) after.balances = held;
      else delete after.balances;
    }
    const judgements = [judgeMemory(memory, after)];
    for (const was of memory.symbols) judgements.push(await lookups(session, was));
    judgements.push(await tradeWindows(session, memory));
    const rules = memory.symbols.flatMap((was) => {
      const found = market.market.symbols.find((s) => s.symbol === was.symbol);
      return found ? [{ rules: found, reference: market.references.get(was.symbol) }] : [];
    });
    if (target.trading) {
      judgements.push(await newIds(session, memory, market));
      for (const { rules: symbol, reference } of rules) {
        // The remembered orders (newIds may or may not have placed one more: the page counts at least).
        const known = (memory.symbols.find((s) => s.symbol === symbol.symbol)?.orders ?? []).map((o) =>
          num(o.orderId),
        );
        judgements.push(await freshReads(session, symbol, reference, known));
      }
    } else
      result.notes.push(
        "new ids and fresh reads not judged: give --allow-trading to place far orders on each symbol",
      );
    if (options.admin)
      judgements.push(await judgeSnapshots(session, options.admin, target.baseUrl, rules, target.trading));
    // Last: the reset throws away the present (brought back by a snapshot taken before it).
    if (options.admin && options.allowReset)
      judgements.push(await judgeReset(session, options.admin, target.baseUrl, rules, target.trading));
    for (const j of judgements) {
      result.findings.push(...j.findings);
      result.held += j.held;
      result.notes.push(...j.notes);
    }
    result.notes.push(...memory.notes.map((n) => `when remembered: ${n}`));
    result.exitCode = result.findings.length > 0 ? EXIT.fault : EXIT.ok;
  } catch (error) {
    result.error = (error as Error).message;
    result.exitCode =
      error instanceof UsageError
        ? EXIT.usage
        : error instanceof ConnectionError || error instanceof ReadFailure
          ? fail(error)
          : EXIT.failed;
  }
  return result;
}

/** A read the restarted target refused is its fault; one it never answered means it is not up. */
function fail(error: Error): 1 | 3 {
  return error instanceof ReadFailure && !/no response|ECONNREFUSED|timed out/i.test(error.message)
    ? EXIT.fault
    : EXIT.failed;
}

/** The report: one line per change, naming the order, trade or balance and the field. */
export function recallText(result: RecallResult): string {
  const lines: string[] = [];
  const mark = result.exitCode === 0 ? "✓" : "✗";
  lines.push(
    `${mark} ${PERSISTENCE.padEnd(20)} ${result.held} held, ${result.findings.length} changed · ${result.file} against ${result.baseUrl}`,
  );
  result.findings.forEach((f, i) => {
    lines.push(`${String(i + 1).padStart(4)}) ${f.subject}: ${f.message}`);
  });
  for (const note of result.notes) lines.push(`   note: ${note}`);
  if (result.error) lines.push(`error: ${result.error}`);
  lines.push(`exit ${result.exitCode}`);
  return `${lines.join("\n")}\n`;
}
