/**
 * The sandbox's options (`startServer({ clock, market, admin })`, `--clock-rate`, `--market…`,
 * `--admin-…`), checked, every fault named; and the saved sandbox state read back from a state file.
 */
import { readFileSync } from "node:fs";
import { ConfigError } from "../config.js";
import type { AdminOptions } from "./admin-server.js";
import { MAX_CLOCK_RATE } from "./clock.js";
import { DEFAULT_TAKERS_PER_MINUTE, DEFAULT_TICK_MS, type MarketSettings } from "./market.js";
import { DEFAULT_WALK, type PriceModel, type RandomWalkModel } from "./price-model.js";
import { parsePriceSeries } from "./price-series.js";
import type { SavedSandbox } from "./sandbox.js";

export interface ClockOptions {
  /** Sandbox time per real time: 1 (default) real time, 60 a minute a second, 0 paused (moved by the admin's advance). */
  rate?: number;
}

export interface MarketOptions {
  /** Daily volatility of the random walk, a fraction (default 0.02). */
  volatility?: number;
  /** Daily drift of the random walk, a fraction (default 0). */
  drift?: number;
  /** A CSV price series to replay (a file path), see price-series.ts; symbols it does not name walk. */
  replay?: string;
  /** Sandbox ms between the market's ticks (default 1000). */
  tickMs?: number;
  /** Taker orders per symbol and minute of sandbox time (default 30). */
  takersPerMinute?: number;
  /** Whether it runs from the start (default true); the admin surface starts and stops it. */
  running?: boolean;
}

export interface SandboxSettings {
  rate: number;
  market: MarketSettings | undefined;
  marketRunning: boolean;
  admin: AdminOptions | undefined;
}

const ADMIN_TOKEN = /^[\x21-\x7e]{16,256}$/;
const MARKET_KEYS = ["volatility", "drift", "replay", "tickMs", "takersPerMinute", "running"];

/** The sandbox's settings, or undefined when no sandbox option is on; throws a ConfigError naming each fault. */
export function sandboxSettings(
  options: {
    clock?: ClockOptions | undefined;
    market?: boolean | MarketOptions | undefined;
    admin?: boolean | AdminOptions | undefined;
  },
  symbols: readonly string[],
): SandboxSettings | undefined {
  const { clock, market, admin } = options;
  if (clock === undefined && !market && !admin) return undefined;
  const faults: string[] = [];
  const rate = clock?.rate ?? 1;
  if (!(typeof rate === "number" && rate >= 0 && rate <= MAX_CLOCK_RATE)) {
    faults.push(
      `clock.rate: must be a number from 0 (paused) to ${MAX_CLOCK_RATE}, got ${JSON.stringify(rate)}`,
    );
  }
  const marketOptions = market === true ? {} : market || undefined;
  let settings: MarketSettings | undefined;
  if (marketOptions) {
    for (const key of Object.keys(marketOptions)) {
      if (!MARKET_KEYS.includes(key))
        faults.push(`market.${key}: unknown option; allowed: ${MARKET_KEYS.join(", ")}`);
    }
    const number = (
      key: keyof MarketOptions,
      fallback: number,
      min: number,
      max: number,
      integer = false,
    ) => {
      const value = marketOptions[key] ?? fallback;
      if (
        typeof value !== "number" ||
        !(value >= min && value <= max) ||
        (integer && !Number.isInteger(value))
      ) {
        faults.push(
          `market.${key}: must be ${integer ? "a whole number" : "a number"} from ${min} to ${max}, got ${JSON.stringify(value)}`,
        );
        return fallback;
      }
      return value;
    };
    const walk: RandomWalkModel = {
      kind: "random-walk",
      volatility: number("volatility", DEFAULT_WALK.volatility, 0, 10),
      drift: number("drift", DEFAULT_WALK.drift, -1, 1),
    };
    const model: PriceModel =
      marketOptions.replay === undefined
        ? walk
        : {
            kind: "replay",
            walk,
            series: parsePriceSeries(readReplay(marketOptions.replay), marketOptions.replay, symbols),
          };
    settings = {
      model,
      tickMs: number("tickMs", DEFAULT_TICK_MS, 10, 60_000, true),
      takersPerMinute: number("takersPerMinute", DEFAULT_TAKERS_PER_MINUTE, 0, 6000),
    };
  }
  const adminOptions = admin === true ? {} : admin || undefined;
  if (adminOptions?.token !== undefined && !ADMIN_TOKEN.test(adminOptions.token)) {
    faults.push("admin.token: must be 16 to 256 printable ASCII characters, no spaces");
  }
  if (faults.length > 0) throw new ConfigError("options", faults);
  return {
    rate,
    market: settings,
    marketRunning: marketOptions?.running ?? true,
    admin: adminOptions,
  };
}

function readReplay(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError("options", [`market.replay: ${path} cannot be read: ${(error as Error).message}`]);
  }
}

/** The saved sandbox of a state file (undefined when there is none); throws an Error naming what is malformed. */
export function readSavedSandbox(text: string | undefined): SavedSandbox | undefined {
  if (text === undefined) return undefined;
  const refusal = () =>
    new Error(
      `its sandbox state (meta "sandbox") is not one this server reads: ${JSON.stringify(text.slice(0, 120))}`,
    );
  let saved: SavedSandbox;
  try {
    saved = JSON.parse(text) as SavedSandbox;
  } catch {
    throw refusal();
  }
  if (saved?.version !== 1 || typeof saved.clock?.time !== "number" || !Array.isArray(saved.accounts)) {
    throw refusal();
  }
  return saved;
}
