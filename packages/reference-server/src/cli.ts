#!/usr/bin/env node
/**
 * marketapi-server: runs the reference server until SIGINT/SIGTERM; `backup` and `restore` copy its
 * state database (state-commands.ts).
 * Exit codes (@marketapi/command's table): 0 after a graceful shutdown, 1 a --config file at fault
 * (located), 2 bad arguments, and a state file it cannot use (missing or read-only folder, full
 * disk, corrupt or inconsistent state, in use by another process, better-sqlite3 missing), 3 when
 * the port cannot be listened on (in use, or not allowed) or the server failed to start otherwise.
 */
import { readFileSync } from "node:fs";
import {
  EXIT,
  InputFault,
  parseCommandLine as parseArguments,
  parseJsonFile,
  reportUsage,
  UsageError,
  wholeNumberOption,
} from "@marketapi/command";
import { ConfigError, parseRetention } from "./config.js";
import { consoleLogger, type Logger } from "./logger.js";
import { StateFileError } from "./persistence.js";
import { type RunningServer, type StartServerOptions, startServer } from "./server.js";
import { isStateCommand, runStateCommand, STATE_COMMANDS_USAGE } from "./state-commands.js";

const SHORT_USAGE =
  "Usage: marketapi-server [--port N] [--host ADDRESS] [--api-key KEY --api-secret SECRET] [--config FILE] [--state FILE] [--live-limits] (all options: --help)";

const USAGE = `Usage: marketapi-server [options]

An in-memory implementation of the spot trading API (/api/v3/...) with a real matching engine.

Options:
  --port N             TCP port (default 8080; 0 picks a free one)
  --host ADDRESS       interface to listen on (default 127.0.0.1)
  --api-key KEY        add an account with this API key and a generous balance in every asset
  --api-secret SECRET  the secret of --api-key (HMAC-SHA256 signing key)
  --config FILE        JSON configuration: symbols, accounts (keys, secrets, balances), rateLimits,
                       maxOpenOrdersPerAccount, maxBodyBytes
  --seed N             seed of the generated liquidity and order ids (default 1)
  --empty              start with empty order books and no trade history
  --state FILE         keep the exchange in the SQLite state database FILE (created when absent):
                       every order is committed before it is answered, so a crash loses nothing
                       confirmed; a JSON state file of earlier versions is imported once
  --retention AGE      forget trades and closed orders older than AGE, such as 36h or 30d
                       (at least 25h; default: keep everything; with --state: delete them)
  --state-sync MODE    with --state: normal (default) keeps every acknowledged change through
                       any crash of the server; full also fsyncs each commit (power loss)
  --log requests       print one line per request: method, path, status, API error code, ms
                       (never the query string, body or headers: no signature, key or secret)
  --live-limits        the live API's rate limits: 6000 request weight a minute and 61000
                       requests per 5 minutes per IP, 50 orders per 10 s and 160000 a day per
                       account, 418 bans after 429s (default: far more generous)
  --recv-window-decimals
                       accept recvWindow with up to three decimals, as the live API does
                       (default: an integer, as the spec says)
  --quiet              print errors only
  -h, --help           show this help

Sandbox (off by default: without these the exchange is static and runs on real time):
  --market             a moving market: simulated participants quote, cancel and take on every
                       symbol around a fair price that follows a random walk (same seed, same market)
  --market-volatility X  the walk's daily volatility, a fraction (default 0.02)
  --market-drift X     the walk's daily drift, a fraction (default 0)
  --market-replay FILE replay a CSV price series instead (header: time,price[,symbol]; see README)
  --clock-rate R       sandbox time per real time: 1 (default), 60 (a minute a second), 0 (paused:
                       time moves only when the admin surface advances it)
  --admin-port N       serve the admin surface (balances, accounts, clock, market, snapshots) on
                       port N of 127.0.0.1; it needs the bearer token the banner prints
  --admin-host ADDRESS interface of the admin surface (default 127.0.0.1: local only)
  --admin-token TOKEN  the admin surface's bearer token (default: a random one)

${STATE_COMMANDS_USAGE}
Exit codes (the same for every marketapi command): 0 stopped by SIGINT or SIGTERM; 1 the --config
file is at fault (file, line and column); 2 usage error, or a --state file it cannot use; 3 the
port cannot be listened on, or the server could not start.
`;

interface CliOptions {
  server: StartServerOptions;
  configPath: string | undefined;
  quiet: boolean;
  logRequests: boolean;
}

function parseCommandLine(argv: string[]): CliOptions | "help" {
  const parsed = parseArguments(
    argv,
    {
      port: { type: "string" },
      host: { type: "string" },
      "api-key": { type: "string" },
      "api-secret": { type: "string" },
      config: { type: "string" },
      seed: { type: "string" },
      empty: { type: "boolean" },
      state: { type: "string" },
      retention: { type: "string" },
      "state-sync": { type: "string" },
      quiet: { type: "boolean" },
      log: { type: "string" },
      "recv-window-decimals": { type: "boolean" },
      market: { type: "boolean" },
      "market-volatility": { type: "string" },
      "market-drift": { type: "string" },
      "market-replay": { type: "string" },
      "clock-rate": { type: "string" },
      "admin-port": { type: "string" },
      "admin-host": { type: "string" },
      "admin-token": { type: "string" },
      "live-limits": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    { allowPositionals: false },
  );
  const values = parsed.values as Record<string, string | undefined> & {
    empty?: boolean;
    quiet?: boolean;
    help?: boolean;
    market?: boolean;
    "recv-window-decimals"?: boolean;
    "live-limits"?: boolean;
  };
  if (values.help) return "help";
  if ((values["api-key"] === undefined) !== (values["api-secret"] === undefined)) {
    throw new UsageError("--api-key and --api-secret go together");
  }
  if (values["state-sync"] !== undefined && values.state === undefined) {
    throw new UsageError("--state-sync needs --state");
  }
  const sync = values["state-sync"];
  if (sync !== undefined && sync !== "normal" && sync !== "full") {
    throw new UsageError(`--state-sync must be normal or full, got "${sync}"`);
  }
  if (values.log !== undefined && values.log !== "requests") {
    throw new UsageError(`--log takes "requests", got "${values.log}"`);
  }
  const retention = values.retention === undefined ? undefined : parseRetention(values.retention);
  if (typeof retention === "string")
    throw new UsageError(`--retention ${retention}, got "${values.retention}"`);
  return {
    server: {
      port: wholeNumberOption("--port", values.port ?? "8080", 0, 65535),
      host: values.host ?? "127.0.0.1",
      apiKey: values["api-key"],
      apiSecret: values["api-secret"],
      seed: values.seed === undefined ? undefined : wholeNumberOption("--seed", values.seed, 0, 2 ** 32 - 1),
      empty: values.empty ?? false,
      statePath: values.state,
      retentionMs: retention,
      ...(sync ? { stateSync: sync } : {}),
      ...(values["recv-window-decimals"] ? { recvWindowDecimals: true } : {}),
      ...sandboxOptions(values),
      ...(values["live-limits"] ? { liveLimits: true } : {}),
    },
    configPath: values.config,
    quiet: values.quiet ?? false,
    logRequests: values.log === "requests",
  };
}

/** The sandbox's options (--market…, --clock-rate, --admin-…). */
function sandboxOptions(values: Record<string, string | boolean | undefined>): StartServerOptions {
  const text = (name: string) => values[name] as string | undefined;
  const marketFlags = ["market-volatility", "market-drift", "market-replay"].filter(
    (name) => text(name) !== undefined,
  );
  if (marketFlags.length > 0 && !values.market) throw new UsageError(`--${marketFlags[0]} needs --market`);
  const adminFlags = ["admin-host", "admin-token"].filter((name) => text(name) !== undefined);
  if (adminFlags.length > 0 && text("admin-port") === undefined)
    throw new UsageError(`--${adminFlags[0]} needs --admin-port`);
  const options: StartServerOptions = {};
  if (values.market) {
    options.market = {
      ...(text("market-volatility") !== undefined
        ? { volatility: decimalOption("--market-volatility", text("market-volatility") as string) }
        : {}),
      ...(text("market-drift") !== undefined
        ? { drift: decimalOption("--market-drift", text("market-drift") as string, true) }
        : {}),
      ...(text("market-replay") !== undefined ? { replay: text("market-replay") } : {}),
    };
  }
  if (text("clock-rate") !== undefined)
    options.clock = { rate: decimalOption("--clock-rate", text("clock-rate") as string) };
  if (text("admin-port") !== undefined) {
    options.admin = {
      port: wholeNumberOption("--admin-port", text("admin-port") as string, 0, 65535),
      host: text("admin-host") ?? "127.0.0.1",
      ...(text("admin-token") !== undefined ? { token: text("admin-token") } : {}),
    };
  }
  return options;
}

function decimalOption(name: string, text: string, signed = false): number {
  if (!(signed ? /^-?[0-9]+(\.[0-9]+)?$/ : /^[0-9]+(\.[0-9]+)?$/).test(text)) {
    throw new UsageError(
      `${name} must be a ${signed ? "" : "non-negative "}decimal number such as 0.02, got "${text}"`,
    );
  }
  return Number(text);
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError("config", [`cannot be read: ${(error as Error).message}`]);
  }
  return parseJsonFile(text, path);
}

function banner(server: RunningServer, options: CliOptions): string {
  const lines = [
    "marketapi reference server",
    `  base URL         ${server.url}`,
    `  demo API key     ${server.demo.apiKey}`,
    `  demo API secret  ${server.demo.apiSecret}`,
    `  symbols          ${server.exchange.symbols().join(", ")}`,
  ];
  if (options.server.apiKey) lines.push(`  your API key     ${options.server.apiKey} (account "user")`);
  if (options.server.statePath) lines.push(`  state file       ${options.server.statePath}`);
  const sandbox = server.sandbox?.status();
  if (sandbox) {
    const rate =
      sandbox.clock.rate === 0 ? "paused (moved by the admin surface)" : `rate ${sandbox.clock.rate}`;
    lines.push(`  sandbox clock    ${sandbox.isoTime}, ${rate}`);
    const market = sandbox.market;
    if (market) {
      const model =
        market.model.kind === "replay"
          ? `replay of ${options.server.market && typeof options.server.market === "object" ? options.server.market.replay : "a series"}`
          : `random walk, volatility ${market.model.volatility}/day, drift ${market.model.drift}/day`;
      lines.push(
        `  market           ${model}, seed ${options.server.seed ?? 1}: ${market.running ? "running" : "stopped"}`,
      );
    }
  }
  if (server.admin)
    lines.push(`  admin            ${server.admin.url} (Authorization: Bearer ${server.admin.token})`);
  const restored = server.restored;
  if (restored) {
    lines.push(
      `  restored         ${restored.accounts} accounts, ${restored.openOrders} open orders, ${restored.trades} trades`,
    );
  } else if (options.server.statePath) {
    lines.push("  restored         nothing: a new state database");
  }
  lines.push("Press Ctrl+C to stop.");
  return lines.join("\n");
}

function stopOnSignals(server: RunningServer, logger: Logger, durable: boolean): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting.`);
      process.exit(1);
    }
    stopping = true;
    const closing = durable ? "finishing requests, closing the state database" : "finishing requests";
    logger.info(`${signal}: shutting down (${closing})…`);
    server.close().then(
      () => {
        logger.info("Stopped.");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error("Shutdown failed:", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** A port that cannot be listened on, in one line (exit code 3). */
function portFault(
  error: NodeJS.ErrnoException & { adminPort?: number; adminHost?: string },
  server: StartServerOptions,
): string | undefined {
  if (error?.adminPort !== undefined) {
    const admin = { host: error.adminHost, port: error.adminPort };
    const fault = portFault(
      { ...error, adminPort: undefined, code: error.code, message: error.message },
      admin,
    );
    return fault?.replace("--port", "--admin-port").replace("--host", "--admin-host").replace(/^/, "admin ");
  }
  const where = `${server.host}:${server.port}`;
  if (error?.code === "EADDRINUSE")
    return `port ${server.port} on ${server.host} is in use (another server?); stop it or choose another with --port`;
  if (error?.code === "EACCES")
    return `not allowed to listen on ${where}; ports below 1024 need privileges: choose another with --port`;
  if (error?.code === "EADDRNOTAVAIL") return `cannot listen on ${where}: no such local address (--host)`;
  return undefined;
}

async function main(argv: string[]): Promise<number | undefined> {
  if (isStateCommand(argv[0])) return runStateCommand(argv[0], argv.slice(1));
  let options: CliOptions | "help";
  try {
    options = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsage("marketapi-server", error, SHORT_USAGE);
  }
  if (options === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  const logger: Logger = options.quiet ? { ...consoleLogger, info: () => {} } : consoleLogger;
  try {
    const config = options.configPath === undefined ? undefined : readConfigFile(options.configPath);
    const requestLog = options.logRequests ? (line: string) => process.stdout.write(`${line}\n`) : undefined;
    const server = await startServer({
      ...options.server,
      config,
      logger: { ...logger, info: () => {} },
      requestLog,
    });
    // Signals first: whoever reads the banner may stop the server at once.
    stopOnSignals(server, logger, options.server.statePath !== undefined);
    logger.info(banner(server, options));
    return undefined;
  } catch (error) {
    const listenFault = portFault(error as NodeJS.ErrnoException, options.server);
    if (listenFault) {
      process.stderr.write(`marketapi-server: ${listenFault}\n`);
      return EXIT.failed;
    }
    const fromFile = error instanceof ConfigError && error.source === "config" && options.configPath;
    const fault = fromFile
      ? new ConfigError(options.configPath as string, error.faults)
      : stateFault(error, options.server.statePath);
    process.stderr.write(`marketapi-server: ${(fault as Error).message}\n`);
    if (fault instanceof InputFault || (fault instanceof ConfigError && fromFile)) return EXIT.fault;
    // A state file it cannot use is 2, as a usage error is: the operator is to pick another file
    // (one in use by another server, damaged, missing its log) or fix the install.
    return fault instanceof ConfigError || fault instanceof StateFileError ? EXIT.usage : EXIT.failed;
  }
}

/**
 * A first commit that fails as the server starts (the disk full, the file read-only) is a state
 * file it cannot use, as every other refusal of one: exit 2, naming the file.
 */
function stateFault(error: unknown, statePath: string | undefined): unknown {
  if (statePath === undefined || (error as Error)?.name !== "StorageFailure") return error;
  return new StateFileError(`state file ${statePath}: ${(error as Error).message}`);
}

main(process.argv.slice(2)).then((code) => {
  if (code !== undefined) process.exit(code);
});
