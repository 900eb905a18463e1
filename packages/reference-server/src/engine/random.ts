/**
 * mulberry32: a tiny 32-bit PRNG. Its whole state is one integer, so it can be persisted
 * with the exchange and replayed exactly.
 */
export class Random {
  state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Advances the generator as `count` draws would, without computing them. */
  skip(count: number): void {
    this.state = (this.state + count * 0x6d2b79f5) % 4294967296;
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new RangeError("pick from an empty list");
    return item;
  }
}

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

const ID_LENGTH = 22;
/** The character codes of the id being drawn (one array for all: ids are drawn one at a time). */
const idCodes: number[] = new Array<number>(ID_LENGTH).fill(0);

/** A 22-character id in the style of Binance's generated clientOrderIds (one string, not 22 joined). */
export function randomClientOrderId(random: Random): string {
  for (let i = 0; i < ID_LENGTH; i += 1) {
    idCodes[i] = ID_ALPHABET.charCodeAt(random.int(0, ID_ALPHABET.length - 1));
  }
  return String.fromCharCode(...idCodes);
}
