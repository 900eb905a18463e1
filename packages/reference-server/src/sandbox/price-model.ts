/**
 * The fair price of each symbol over sandbox time, by a stated model: a geometric random walk
 * (daily volatility and drift, as fractions), or the replay of a user's price series (price-series.ts)
 * laid from the market's start on. The simulated participants quote and take around it; trades
 * then print around it. Its draws come from a generator of its own, so the path depends on the seed
 * and the ticks alone, never on what clients or participants do.
 */
import { Random } from "../engine/random.js";
import { gaussian } from "./draws.js";
import { type PriceSeries, priceAt } from "./price-series.js";

export const DAY_MS = 86_400_000;

export interface RandomWalkModel {
  kind: "random-walk";
  /** Standard deviation of the log price over a day (0.02: about 2 % a day). */
  volatility: number;
  /** Expected log return over a day (0: no trend). */
  drift: number;
}

export interface ReplayModel {
  kind: "replay";
  /** Series read from the user's CSV: per symbol, or one of relative moves for every symbol. */
  series: readonly PriceSeries[];
  /** Symbols without a series of their own follow this walk. */
  walk: RandomWalkModel;
}

export type PriceModel = RandomWalkModel | ReplayModel;

export const DEFAULT_WALK: RandomWalkModel = { kind: "random-walk", volatility: 0.02, drift: 0 };

/** The path's state: what a restart needs to go on exactly where it was. */
export interface FairPricesState {
  random: number;
  /** Fair price per symbol at the last step. */
  prices: Record<string, number>;
  /** Fair price per symbol when the market started (relative replays scale from it). */
  starts: Record<string, number>;
}

export class FairPrices {
  private readonly random: Random;
  private readonly prices: Map<string, number>;
  private readonly starts: Map<string, number>;

  constructor(
    private readonly model: PriceModel,
    state: FairPricesState,
  ) {
    this.random = new Random(state.random);
    this.prices = new Map(Object.entries(state.prices));
    this.starts = new Map(Object.entries(state.starts));
  }

  static initial(model: PriceModel, seed: number, starts: Record<string, number>): FairPrices {
    return new FairPrices(model, {
      random: (seed ^ 0x9a7e) >>> 0,
      prices: { ...starts },
      starts: { ...starts },
    });
  }

  price(symbol: string): number {
    const price = this.prices.get(symbol);
    if (price === undefined) throw new Error(`no fair price for ${symbol}`);
    return price;
  }

  /** Moves `symbol`'s fair price on by `dtMs`, to the time `elapsedMs` after the market's start. */
  step(symbol: string, dtMs: number, elapsedMs: number): number {
    const series = this.seriesOf(symbol);
    // A draw per step whatever the model, so that a replayed symbol leaves the others' paths as they were.
    const shock = gaussian(this.random);
    let price: number;
    if (series) {
      const replayed = priceAt(series, elapsedMs);
      price =
        series.symbol === undefined
          ? (this.starts.get(symbol) as number) * (replayed / (series.prices[0] as number))
          : replayed;
    } else {
      const walk = this.model.kind === "random-walk" ? this.model : this.model.walk;
      const days = dtMs / DAY_MS;
      const logReturn =
        (walk.drift - (walk.volatility * walk.volatility) / 2) * days +
        walk.volatility * Math.sqrt(days) * shock;
      price = this.price(symbol) * Math.exp(logReturn);
    }
    this.prices.set(symbol, price);
    return price;
  }

  state(): FairPricesState {
    return {
      random: this.random.state,
      prices: Object.fromEntries(this.prices),
      starts: Object.fromEntries(this.starts),
    };
  }

  private seriesOf(symbol: string): PriceSeries | undefined {
    if (this.model.kind !== "replay") return undefined;
    return (
      this.model.series.find((series) => series.symbol === symbol) ??
      this.model.series.find((series) => series.symbol === undefined)
    );
  }
}
