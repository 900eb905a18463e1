/**
 * The server configuration (`--config FILE` or `startServer({ config })`): symbols, accounts with
 * keys and balances, rate limits and resource limits. Every fault is reported with the JSON
 * Pointer of the value at fault, all at once.
 */

import { DEFAULT_SYMBOLS, MARKET_MAKER_ID, type SymbolConfig } from "./engine/index.js";
import { compileRules, type SymbolFilter } from "./engine/symbols.js";
import { API_KEY_PATTERN } from "./http/auth.js";
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "./http/connections.js";
import {
  DEFAULT_RATE_LIMITS,
  LIVE_RATE_LIMITS,
  RATE_LIMIT_KEYS,
  type RateLimitConfig,
} from "./http/rate-limits.js";
import { PARTICIPANT_IDS } from "./sandbox/participants.js";

export interface AccountConfig {
  /** Account id (kept in the state file); defaults to the API key. */
  id: string;
  apiKey: string;
  apiSecret: string;
  /** Starting balances by asset; the generous default balance in every asset when absent. */
  balances?: Record<string, string>;
}

export interface ServerConfig {
  symbols?: SymbolConfig[];
  accounts: AccountConfig[];
  rateLimits: RateLimitConfig;
  maxOpenOrdersPerAccount?: number;
  /** Largest accepted form body in bytes (default 65536). */
  maxBodyBytes: number;
  /** Connection caps and timeouts. */
  network: ConnectionLimits;
  /** With a state file: trades and closed orders older than this are deleted (ms; default: kept). */
  historyRetentionMs?: number;
  /** With a state file: "normal" (survives the server's crash) or "full" (also a power loss). */
  stateSync?: "normal" | "full";
}

/** A symbol given by its trading rules; everything else takes the defaults of BTCUSDT. */
export interface SymbolSketch {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  referencePrice: string;
  tickSize?: string;
  stepSize?: string;
  minNotional?: string;
  maxPrice?: string;
  maxQty?: string;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Account ids the server uses itself (the simulated market's participants among them). */
export const RESERVED_ACCOUNT_IDS: readonly string[] = ["demo", "user", MARKET_MAKER_ID, ...PARTICIPANT_IDS];

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly faults: readonly string[],
  ) {
    super(`Invalid configuration ${source}:\n${faults.map((f) => `  ${f}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

const SYMBOL = /^[A-Z0-9-_.]{1,20}$/;
const ASSET = /^[A-Z0-9]{1,20}$/;
const DECIMAL = /^[0-9]{1,20}(\.[0-9]{1,20})?$/;
const ACCOUNT_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const API_KEY = new RegExp(API_KEY_PATTERN);
const TOP_LEVEL_KEYS = [
  "symbols",
  "accounts",
  "rateLimits",
  "maxOpenOrdersPerAccount",
  "maxBodyBytes",
  "network",
  "historyRetention",
  "stateSync",
];
const SKETCH_KEYS = [
  "symbol",
  "baseAsset",
  "quoteAsset",
  "referencePrice",
  "tickSize",
  "stepSize",
  "minNotional",
  "maxPrice",
  "maxQty",
];

/** Collects faults while reading a configuration. */
class Reader {
  readonly faults: string[] = [];

  fault(path: string, message: string): undefined {
    this.faults.push(`${path || "/"}: ${message}`);
    return undefined;
  }

  object(value: unknown, path: string, allowed: readonly string[]): Record<string, unknown> | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return this.fault(path, "must be an object");
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.fault(`${path}/${key}`, `unknown key; allowed: ${allowed.join(", ")}`);
    }
    return value as Record<string, unknown>;
  }

  text(value: unknown, path: string, pattern: RegExp, what: string): string | undefined {
    if (typeof value !== "string" || !pattern.test(value)) return this.fault(path, `must be ${what}`);
    return value;
  }

  positiveDecimal(value: unknown, path: string): string | undefined {
    const text = this.text(value, path, DECIMAL, 'a decimal string such as "0.01"');
    if (text !== undefined && !/[1-9]/.test(text)) return this.fault(path, "must be greater than 0");
    return text;
  }

  positiveInteger(value: unknown, path: string): number | undefined {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      return this.fault(path, "must be a positive integer");
    }
    return value;
  }
}

/** Checks and completes a configuration; throws a ConfigError listing every fault. */
export function parseConfig(
  raw: unknown,
  source = "config",
  options: { liveLimits?: boolean } = {},
): ServerConfig {
  const reader = new Reader();
  const top = reader.object(raw ?? {}, "", TOP_LEVEL_KEYS) ?? {};
  const symbols = top.symbols === undefined ? undefined : readSymbols(reader, top.symbols);
  const config: ServerConfig = {
    symbols,
    accounts: top.accounts === undefined ? [] : readAccounts(reader, top.accounts),
    rateLimits: readRateLimits(
      reader,
      top.rateLimits,
      options.liveLimits ? LIVE_RATE_LIMITS : DEFAULT_RATE_LIMITS,
    ),
    maxOpenOrdersPerAccount: optionalInteger(reader, top.maxOpenOrdersPerAccount, "/maxOpenOrdersPerAccount"),
    maxBodyBytes: optionalInteger(reader, top.maxBodyBytes, "/maxBodyBytes") ?? DEFAULT_MAX_BODY_BYTES,
    network: readNetwork(reader, top.network),
    historyRetentionMs:
      top.historyRetention === undefined
        ? undefined
        : readRetention(reader, top.historyRetention, "/historyRetention"),
    stateSync: top.stateSync === undefined ? undefined : readStateSync(reader, top.stateSync),
  };
  if (reader.faults.length > 0) throw new ConfigError(source, reader.faults);
  return config;
}

function optionalInteger(reader: Reader, value: unknown, path: string): number | undefined {
  return value === undefined ? undefined : reader.positiveInteger(value, path);
}

function readSymbols(reader: Reader, value: unknown): SymbolConfig[] | undefined {
  if (!Array.isArray(value) || value.length === 0)
    return reader.fault("/symbols", "must be a non-empty array");
  const symbols = value.flatMap((entry, i) => readSymbol(reader, entry, `/symbols/${i}`) ?? []);
  const seen = new Set<string>();
  symbols.forEach((s, i) => {
    if (seen.has(s.symbol)) reader.fault(`/symbols/${i}`, `symbol ${s.symbol} is listed twice`);
    seen.add(s.symbol);
  });
  return symbols;
}

function readSymbol(reader: Reader, value: unknown, path: string): SymbolConfig | undefined {
  if (typeof value === "string") {
    const known = DEFAULT_SYMBOLS.find((s) => s.symbol === value);
    if (known) return structuredClone(known);
    const names = DEFAULT_SYMBOLS.map((s) => s.symbol).join(", ");
    return reader.fault(path, `unknown built-in symbol "${value}"; built in: ${names} (or give an object)`);
  }
  const fields = reader.object(value, path, SKETCH_KEYS);
  if (!fields) return undefined;
  const sketch = readSketch(reader, fields, path);
  if (!sketch) return undefined;
  const config = symbolFromSketch(sketch);
  try {
    compileRules(config);
  } catch (error) {
    return reader.fault(path, (error as Error).message);
  }
  return config;
}

function readSketch(reader: Reader, fields: Record<string, unknown>, path: string): SymbolSketch | undefined {
  const before = reader.faults.length;
  const decimal = (key: string) =>
    fields[key] === undefined ? undefined : reader.positiveDecimal(fields[key], `${path}/${key}`);
  const sketch: SymbolSketch = {
    symbol: reader.text(fields.symbol, `${path}/symbol`, SYMBOL, "a symbol such as BTCUSDT") ?? "",
    baseAsset: reader.text(fields.baseAsset, `${path}/baseAsset`, ASSET, "an asset such as BTC") ?? "",
    quoteAsset: reader.text(fields.quoteAsset, `${path}/quoteAsset`, ASSET, "an asset such as USDT") ?? "",
    referencePrice: reader.positiveDecimal(fields.referencePrice, `${path}/referencePrice`) ?? "",
    tickSize: decimal("tickSize"),
    stepSize: decimal("stepSize"),
    minNotional: decimal("minNotional"),
    maxPrice: decimal("maxPrice"),
    maxQty: decimal("maxQty"),
  };
  if (sketch.baseAsset !== "" && sketch.baseAsset === sketch.quoteAsset) {
    reader.fault(`${path}/quoteAsset`, "must differ from baseAsset");
  }
  return reader.faults.length === before ? sketch : undefined;
}

/** A full symbol configuration from a sketch, on the template of the built-in BTCUSDT. */
export function symbolFromSketch(sketch: SymbolSketch): SymbolConfig {
  const template = structuredClone(DEFAULT_SYMBOLS[0] as SymbolConfig);
  const filters = template.filters.map((filter) => sketchFilter(filter, sketch));
  return {
    ...template,
    symbol: sketch.symbol,
    baseAsset: sketch.baseAsset,
    quoteAsset: sketch.quoteAsset,
    referencePrice: sketch.referencePrice,
    filters,
  };
}

function sketchFilter(filter: SymbolFilter, s: SymbolSketch): SymbolFilter {
  switch (filter.filterType) {
    case "PRICE_FILTER": {
      const tickSize = s.tickSize ?? filter.tickSize;
      return { ...filter, minPrice: tickSize, tickSize, maxPrice: s.maxPrice ?? filter.maxPrice };
    }
    case "LOT_SIZE": {
      const stepSize = s.stepSize ?? filter.stepSize;
      return { ...filter, minQty: stepSize, stepSize, maxQty: s.maxQty ?? filter.maxQty };
    }
    case "NOTIONAL":
      return { ...filter, minNotional: s.minNotional ?? filter.minNotional };
    default:
      return filter;
  }
}

function readAccounts(reader: Reader, value: unknown): AccountConfig[] {
  if (!Array.isArray(value)) return reader.fault("/accounts", "must be an array") ?? [];
  const accounts = value.flatMap((entry, i) => readAccount(reader, entry, `/accounts/${i}`) ?? []);
  const keys = new Set<string>();
  const ids = new Set<string>();
  accounts.forEach((account, i) => {
    if (keys.has(account.apiKey)) reader.fault(`/accounts/${i}/apiKey`, "is used by another account");
    if (ids.has(account.id)) reader.fault(`/accounts/${i}/id`, `account id "${account.id}" is used twice`);
    keys.add(account.apiKey);
    ids.add(account.id);
  });
  return accounts;
}

function readAccount(reader: Reader, value: unknown, path: string): AccountConfig | undefined {
  const fields = reader.object(value, path, ["id", "apiKey", "apiSecret", "balances"]);
  if (!fields) return undefined;
  const before = reader.faults.length;
  const apiKey = reader.text(fields.apiKey, `${path}/apiKey`, API_KEY, `text matching ${API_KEY_PATTERN}`);
  const apiSecret = reader.text(
    fields.apiSecret,
    `${path}/apiSecret`,
    /^[\x21-\x7e]{1,256}$/,
    "1 to 256 printable ASCII characters",
  );
  const id =
    fields.id === undefined
      ? apiKey
      : reader.text(fields.id, `${path}/id`, ACCOUNT_ID, `text matching ${ACCOUNT_ID.source}`);
  if (id !== undefined && RESERVED_ACCOUNT_IDS.includes(id)) {
    reader.fault(`${path}/id`, `"${id}" is reserved (${RESERVED_ACCOUNT_IDS.join(", ")})`);
  }
  const balances =
    fields.balances === undefined ? undefined : readBalances(reader, fields.balances, `${path}/balances`);
  if (reader.faults.length > before || !apiKey || !apiSecret || !id) return undefined;
  return { id, apiKey, apiSecret, balances };
}

function readBalances(reader: Reader, value: unknown, path: string): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return reader.fault(path, 'must be an object such as { "USDT": "10000" }');
  }
  const balances: Record<string, string> = {};
  for (const [asset, amount] of Object.entries(value)) {
    if (!ASSET.test(asset)) reader.fault(`${path}/${asset}`, "is not an asset name such as BTC");
    const text = reader.text(amount, `${path}/${asset}`, DECIMAL, 'a decimal string such as "1000"');
    if (text !== undefined) balances[asset] = text;
  }
  return balances;
}

/**
 * `rateLimits`: "live" (the live API's limits), "default", or an object of limits, each over the
 * defaults (or over the live limits with `base` "live", which `--live-limits` sets).
 */
function readRateLimits(reader: Reader, value: unknown, base: RateLimitConfig): RateLimitConfig {
  if (value === undefined) return { ...base };
  if (value === "live") return { ...LIVE_RATE_LIMITS };
  if (value === "default") return { ...DEFAULT_RATE_LIMITS };
  if (typeof value === "string")
    return reader.fault("/rateLimits", 'must be "live", "default" or an object') ?? base;
  const fields = reader.object(value, "/rateLimits", RATE_LIMIT_KEYS) ?? {};
  const limits: RateLimitConfig = { ...base };
  for (const key of RATE_LIMIT_KEYS) {
    if (fields[key] === undefined) continue;
    const read = reader.positiveInteger(fields[key], `/rateLimits/${key}`);
    if (read !== undefined) limits[key] = read;
  }
  return limits;
}

function readNetwork(reader: Reader, value: unknown): ConnectionLimits {
  if (value === undefined) return { ...DEFAULT_CONNECTION_LIMITS };
  const keys = Object.keys(DEFAULT_CONNECTION_LIMITS) as (keyof ConnectionLimits)[];
  const fields = reader.object(value, "/network", keys) ?? {};
  const limits = { ...DEFAULT_CONNECTION_LIMITS };
  for (const key of keys) {
    if (fields[key] === undefined) continue;
    limits[key] = reader.positiveInteger(fields[key], `/network/${key}`) ?? limits[key];
  }
  return limits;
}

const DURATION = /^([1-9][0-9]{0,6})(h|d)$/;
/** Shortest retention: the 24-hour ticker reads the trades of the minute its window starts in. */
export const MIN_RETENTION_MS = 25 * 60 * 60 * 1000;

/** A retention period such as "36h" or "30d" (at least 25 hours), in ms. */
export function parseRetention(text: string): number | string {
  const match = DURATION.exec(text);
  if (!match) return 'must be a duration such as "36h" or "30d"';
  const ms = Number(match[1]) * (match[2] === "d" ? 24 : 1) * 60 * 60 * 1000;
  if (ms < MIN_RETENTION_MS) return "must be at least 25h (the 24-hour ticker needs a day of trades)";
  return ms;
}

function readRetention(reader: Reader, value: unknown, path: string): number | undefined {
  const parsed =
    typeof value === "string" ? parseRetention(value) : 'must be a duration such as "36h" or "30d"';
  return typeof parsed === "number" ? parsed : reader.fault(path, parsed);
}

function readStateSync(reader: Reader, value: unknown): "normal" | "full" | undefined {
  if (value === "normal" || value === "full") return value;
  return reader.fault("/stateSync", 'must be "normal" or "full"');
}
