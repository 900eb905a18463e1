/**
 * startServer: the exchange, its accounts and API keys, the HTTP server on node:http with its
 * connection limits, the optional state database and a graceful close.
 */
import { createServer, maxHeaderSize, type Server } from "node:http";
import { type AccountConfig, ConfigError, parseConfig, type ServerConfig } from "./config.js";
import {
  createExchange,
  DEFAULT_SYMBOLS,
  type Exchange,
  type History,
  MARKET_MAKER_ID,
  MemoryHistory,
} from "./engine/index.js";
import { describeApi } from "./http/api.js";
import { KeyRing } from "./http/auth.js";
import { AnswerBudget } from "./http/backpressure.js";
import { guardConnections, timeoutOptions } from "./http/connections.js";
import { RequestHold } from "./http/hold.js";
import { createPipeline } from "./http/pipeline.js";
import { answerProtocolFaults } from "./http/protocol.js";
import { RateLimiter } from "./http/rate-limits.js";
import { logRequests } from "./http/request-log.js";
import { ShutdownGate } from "./http/shutdown.js";
import { errorsOnlyLogger, type Logger } from "./logger.js";
import { type OpenedState, openState } from "./persistence.js";
import { type AdminOptions, type RunningAdmin, startAdmin } from "./sandbox/admin-server.js";
import { SandboxClock } from "./sandbox/clock.js";
import {
  type ClockOptions,
  type MarketOptions,
  readSavedSandbox,
  type SandboxSettings,
  sandboxSettings,
} from "./sandbox/options.js";
import { SANDBOX_META_KEY, Sandbox } from "./sandbox/sandbox.js";
import { ServedState } from "./served-state.js";
import { StateFileError } from "./store/state-file-error.js";

export interface StartServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** An extra account (id "user") with a generous balance in every asset; needs `apiSecret`. */
  apiKey?: string;
  apiSecret?: string;
  /** Symbols, accounts, rate limits, limits: an object in the `--config` file format (checked). */
  config?: unknown;
  /** Seed of the generated liquidity and client order ids (reproducible runs). Default 1. */
  seed?: number;
  /** Start without the market maker's liquidity and trade history. */
  empty?: boolean;
  /**
   * State database (SQLite): created when absent, loaded when present; every change is committed
   * before it is answered. A JSON state file of earlier versions is imported once.
   */
  statePath?: string;
  /** Trades and closed orders older than this are forgotten (ms, at least 25 h; default: kept). */
  retentionMs?: number;
  /**
   * With `statePath`: "normal" (default) commits each batch to the operating system, which keeps it
   * through any crash of the server (kill -9); "full" also fsyncs it, to survive a power loss.
   */
  stateSync?: "normal" | "full";
  /**
   * Accept `recvWindow` with up to three decimals, as the live API does (`--recv-window-decimals`).
   * Off by default: the spec's recvWindow is an integer, and real clients send integers.
   */
  recvWindowDecimals?: boolean;
  /**
   * The live API's rate limits (`--live-limits`): 6000 request weight a minute and 61,000 requests
   * per 5 minutes per IP, 50 orders per 10 s and 160,000 a day per account, then 418 bans. The
   * default is far more generous. `config.rateLimits` keys override either.
   */
  liveLimits?: boolean;
  /** The clock (epoch milliseconds); default Date.now (with a sandbox option: the sandbox clock, started from it). */
  now?: () => number;
  /**
   * The sandbox clock: `rate` sandbox ms per real ms (default 1; 0 paused, moved only by an advance).
   * With any of `clock`, `market`, `admin` the server reads the sandbox clock (see `sandbox`).
   */
  clock?: ClockOptions;
  /** A moving market: simulated participants quote, cancel and take on every symbol (true: the defaults). */
  market?: boolean | MarketOptions;
  /** The admin surface, on a port of its own (true: a free port on 127.0.0.1 and a random token). */
  admin?: boolean | AdminOptions;
  logger?: Logger;
  /** How long to wait for in-flight requests on close before dropping connections (ms, default 5000). */
  closeGraceMs?: number;
  /**
   * Called with one line per request once it is answered: method, path (no query string), status,
   * the API error code if any, milliseconds. Never a signature, key or secret.
   */
  requestLog?: (line: string) => void;
}

/** What a state database held when the server started from it. */
export interface RestoredState {
  /** Accounts, the market maker's excepted. */
  accounts: number;
  openOrders: number;
  /** Trades made so far (the ids given out), also those retention has deleted. */
  trades: number;
}

export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

export interface RunningServer {
  /** Base URL, such as http://127.0.0.1:8080. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** The live exchange (for assertions and direct setup in tests). */
  readonly exchange: Exchange;
  /** The built-in demo account's credentials. */
  readonly demo: Credentials;
  /** With a state database that already held an exchange: what was restored from it. */
  readonly restored: RestoredState | undefined;
  /** With a sandbox option: the clock, the market and the admin operations, in-process. */
  readonly sandbox: Sandbox | undefined;
  /** With `admin`: where the admin surface listens (`url` ends in /admin/v1) and its bearer token. */
  readonly admin: { url: string; token: string } | undefined;
  /** Resolves once every change so far is committed to the state database (at once without one). */
  saveState(): Promise<void>;
  /** Stops accepting connections, finishes in-flight requests, closes the state database. Idempotent. */
  close(): Promise<void>;
}

/** The demo account every server has (id "demo"). */
export const DEMO_CREDENTIALS: Readonly<Credentials> = Object.freeze({
  apiKey: "marketapi-demo-api-key",
  apiSecret: "marketapi-demo-api-secret",
});

/** Balance given in every asset to the demo account, the `apiKey` account and configured accounts without balances. */
export const GENEROUS_BALANCE = "1000000";

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const config = parseConfig(options.config ?? {}, "config", { liveLimits: options.liveLimits === true });
  const settings = sandboxSettings(
    options,
    (config.symbols ?? DEFAULT_SYMBOLS).map((s) => s.symbol),
  );
  const clock = settings ? sandboxClock(options, settings) : undefined;
  const now = clock?.now ?? options.now ?? Date.now;
  const logger = options.logger ?? errorsOnlyLogger;
  const accounts = accountsOf(options, config);
  const stored = options.statePath
    ? await openStateFor(options, config, logger, now, settings !== undefined)
    : undefined;
  const exchange = stored?.exchange ?? newExchange(options, config, now);
  const restored = stored?.restored ? restoredState(exchange) : undefined;
  const hold = new RequestHold();
  const served = stored ? servedState(stored, exchange, options, config, logger, now, hold) : undefined;
  let server: Server | undefined;
  let sandbox: Sandbox | undefined;
  let admin: RunningAdmin | undefined;
  try {
    const keys = openAccounts(exchange, accounts);
    const rateLimiter = new RateLimiter(config.rateLimits);
    if (settings && clock) {
      sandbox = new Sandbox(
        {
          exchange,
          clock,
          keys,
          rateLimiter,
          storage: served,
          logger,
          seed: options.seed ?? 1,
          retentionMs: options.retentionMs ?? config.historyRetentionMs,
          generousBalance: GENEROUS_BALANCE,
        },
        settings.market,
        savedSandbox(stored, options.statePath),
      );
    }
    await stored?.database.committed();
    const api = describeApi();
    const listener = createPipeline({
      api,
      exchange,
      keys,
      rateLimiter,
      limits: { maxBodyBytes: config.maxBodyBytes, maxParams: 64 },
      now,
      logger,
      storage: served,
      recvWindowDecimals: options.recvWindowDecimals === true,
    });
    const gate = new ShutdownGate();
    const budget = new AnswerBudget(config.network);
    // Outermost: a request held while a snapshot is restored is then refused if the server closes.
    const guarded = hold.guard(gate.guard(budget.guard(listener)));
    const logged = options.requestLog ? logRequests(guarded, options.requestLog) : guarded;
    // A missing Host is the pipeline's refusal, in the API's shape (http/protocol.ts).
    server = createServer({ ...timeoutOptions(config.network), requireHostHeader: false }, logged);
    guardConnections(server, config.network, (address) => rateLimiter.banOf(address, now()));
    answerProtocolFaults(server, {
      maxHeaderBytes: maxHeaderSize,
      methods: api.operations.map((operation) => operation.method.toUpperCase()),
      usedWeight: (address) => rateLimiter.usedWeight(address, now()),
    });
    const host = options.host ?? "127.0.0.1";
    const port = await listen(server, options.port ?? 0, host);
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
    logger.info(`marketapi reference server listening on ${url}`);
    if (sandbox && settings?.admin) admin = await listenAdmin(sandbox, settings.admin, logger);
    await sandbox?.start(settings?.marketRunning === true);
    let closing: Promise<void> | undefined;
    const running = server;
    const runningSandbox = sandbox;
    const runningAdmin = admin;
    return {
      url,
      port,
      host,
      exchange,
      demo: { ...DEMO_CREDENTIALS },
      restored,
      sandbox,
      admin: admin ? { url: admin.url, token: admin.token } : undefined,
      saveState: async () => served?.committed(),
      close: () => {
        runningSandbox?.close();
        closing ??= Promise.all([
          closeServer(running, gate, options.closeGraceMs ?? 5000),
          runningAdmin?.close(),
        ]).then(() => served?.close());
        return closing;
      },
    };
  } catch (error) {
    sandbox?.close();
    await admin?.close();
    server?.close();
    await served?.close();
    throw error;
  }
}

/** The sandbox clock: from the given clock (tests) or real time, at the configured rate. */
function sandboxClock(options: StartServerOptions, settings: SandboxSettings): SandboxClock {
  const given = options.now;
  return new SandboxClock({
    start: (given ?? Date.now)(),
    rate: settings.rate,
    ...(given ? { real: given } : {}),
  });
}

/** The sandbox state a state file holds (the clock's time, the market's), if any. */
function savedSandbox(stored: OpenedState | undefined, path: string | undefined) {
  if (!stored?.restored) return undefined;
  try {
    return readSavedSandbox(stored.database.metaValue(SANDBOX_META_KEY));
  } catch (error) {
    throw new StateFileError(`state file ${path}: ${(error as Error).message}`);
  }
}

async function listenAdmin(sandbox: Sandbox, options: AdminOptions, logger: Logger): Promise<RunningAdmin> {
  try {
    return await startAdmin(sandbox, options, logger);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    // Told apart from the API's port by the command (--admin-port).
    throw Object.assign(new Error((error as Error).message), {
      code,
      adminPort: options.port ?? 0,
      adminHost: options.host ?? "127.0.0.1",
    });
  }
}

/** The opened database as the server serves it (the sandbox may replace it by a snapshot). */
function servedState(
  stored: OpenedState,
  exchange: Exchange,
  options: StartServerOptions,
  config: ServerConfig,
  logger: Logger,
  now: () => number,
  hold: RequestHold,
): ServedState {
  const path = options.statePath as string;
  return new ServedState(stored.database, exchange, {
    path,
    now,
    retentionMs: options.retentionMs ?? config.historyRetentionMs,
    sync: options.stateSync ?? config.stateSync,
    onFailure: stateFailure(path, logger),
    hold,
  });
}

function stateFailure(path: string, logger: Logger): (reason: string) => void {
  return (reason) =>
    logger.error(`State database ${path} cannot be written (${reason}); orders are refused until it can.`);
}

function openStateFor(
  options: StartServerOptions,
  config: ServerConfig,
  logger: Logger,
  now: () => number,
  sandbox: boolean,
): Promise<OpenedState> {
  const path = options.statePath as string;
  return openState(path, {
    // A server with sandbox options reads the sandbox's saved state: one it cannot take refuses
    // the file before anything is written to it (a server without them does not read the row).
    checkSaved: sandbox ? (metaValue) => void readSavedSandbox(metaValue(SANDBOX_META_KEY)) : undefined,
    now,
    logger,
    retentionMs: options.retentionMs ?? config.historyRetentionMs,
    sync: options.stateSync ?? config.stateSync,
    onFailure: stateFailure(path, logger),
    fresh: {
      symbols: config.symbols ?? DEFAULT_SYMBOLS,
      maxOpenOrdersPerAccount: config.maxOpenOrdersPerAccount ?? 200,
      create: (history) => newExchange(options, config, now, history),
    },
  });
}

function restoredState(exchange: Exchange): RestoredState {
  const state = exchange.internalState();
  let openOrders = 0;
  let trades = 0;
  for (const market of state.markets.values()) {
    openOrders += market.openOrders.size;
    trades += market.nextTradeId - 1;
  }
  const accounts = [...state.accounts.keys()].filter((id) => id !== MARKET_MAKER_ID).length;
  return { accounts, openOrders, trades };
}

function newExchange(
  options: StartServerOptions,
  config: ServerConfig,
  now: () => number,
  history?: History,
): Exchange {
  const retentionMs = options.retentionMs ?? config.historyRetentionMs;
  return createExchange({
    symbols: config.symbols,
    now,
    seed: options.seed,
    liquidity: !options.empty,
    maxOpenOrdersPerAccount: config.maxOpenOrdersPerAccount,
    history: history ?? new MemoryHistory(retentionMs),
  });
}

function accountsOf(options: StartServerOptions, config: ServerConfig): AccountConfig[] {
  const accounts: AccountConfig[] = [{ id: "demo", ...DEMO_CREDENTIALS }];
  if (options.apiKey !== undefined || options.apiSecret !== undefined) {
    accounts.push({ ...userCredentials(options.apiKey, options.apiSecret), id: "user" });
  }
  for (const account of config.accounts) accounts.push(account); // any number (no spread into push)
  const keys = accounts.map((account) => account.apiKey);
  const taken = keys.filter((key, i) => keys.indexOf(key) !== i);
  if (taken.length > 0)
    throw new ConfigError(
      "options",
      taken.map((key) => `API key "${key}" is used twice`),
    );
  return accounts;
}

/** The `apiKey`/`apiSecret` options, checked like a configured account. */
function userCredentials(apiKey: string | undefined, apiSecret: string | undefined): Credentials {
  try {
    const [account] = parseConfig({ accounts: [{ apiKey, apiSecret }] }).accounts;
    return { apiKey: account?.apiKey ?? "", apiSecret: account?.apiSecret ?? "" };
  } catch (error) {
    const faults = (error as ConfigError).faults.map((fault) => fault.replace("/accounts/0/", ""));
    throw new ConfigError("options", faults);
  }
}

/** Registers every key; accounts missing from the exchange (new, or not in the state file) are opened. */
function openAccounts(exchange: Exchange, accounts: readonly AccountConfig[]): KeyRing {
  const keys = new KeyRing();
  const assets = allAssets(exchange);
  for (const account of accounts) {
    keys.add({ apiKey: account.apiKey, apiSecret: account.apiSecret, accountId: account.id });
    if (exchange.hasAccount(account.id)) continue;
    const balances = account.balances ?? Object.fromEntries(assets.map((asset) => [asset, GENEROUS_BALANCE]));
    exchange.addAccount(account.id, balances);
  }
  return keys;
}

function allAssets(exchange: Exchange): string[] {
  const assets = exchange.symbols().flatMap((symbol) => {
    const config = exchange.symbolConfig(symbol);
    return [config.baseAsset, config.quoteAsset];
  });
  return [...new Set(assets)].sort();
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
}

/**
 * Stops accepting connections and refuses new requests (503) at once, lets in-flight requests
 * finish (up to `graceMs`), closing each connection as it falls idle, then closes what is left.
 */
function closeServer(server: Server, gate: ShutdownGate, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    gate.close(() => server.closeIdleConnections());
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
