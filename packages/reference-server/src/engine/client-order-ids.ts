/**
 * Generated client order ids. An order sent without newClientOrderId gets 22 characters of
 * [A-Za-z0-9], like Binance's, that also carry its orderId: nine of them are the orderId's base-62
 * digits, each shifted by a sum of the thirteen random characters. So a lookup by a generated id
 * decodes the orderId and checks that order, and the histories keep a map entry (in memory, and
 * a row in the state database's client_order_ids) only for the ids clients choose. Any id that
 * decodes to its own order's id may be found that way, whoever chose it: a client's id that looks
 * generated is looked up by both routes, and the newer order wins.
 */
import type { Random } from "./random.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/**
 * Numbers are split into digits with Math.floor and a multiply, not `%`: on a number the compiler
 * cannot prove a small integer, `%` is a floating-point remainder (a call into the C library).
 */
const BASE = ALPHABET.length;
export const GENERATED_ID_LENGTH = 22;
/** Base-62 digits of an orderId (62^9 > 2^53, so every safe integer fits). */
const ID_DIGITS = 9;
/** Where the orderId's digits go (least significant first); the other places hold random digits. */
const ID_PLACES = Int8Array.of(2, 20, 5, 13, 17, 8, 0, 11, 15);
const RANDOM_PLACES = Int8Array.from(
  Array.from({ length: GENERATED_ID_LENGTH }, (_, i) => i).filter((place) => !ID_PLACES.includes(place)),
);
const RANDOMS = RANDOM_PLACES.length;
/** Random digits drawn from one 32-bit draw (62^5 < 2^32). */
const DIGITS_PER_DRAW = 5;
const DRAW_RANGE = BASE ** DIGITS_PER_DRAW;
const DRAWS = Math.ceil(RANDOMS / DIGITS_PER_DRAW);
/**
 * A generated id advances the generator as the 22 single-character draws of the ids before it did,
 * so the ids drawn after it (cancel reports' clientOrderIds) and the saved generator state are
 * what they were.
 */
const DRAWS_PER_ID = GENERATED_ID_LENGTH;

/** The digit of each character code of the alphabet; -1 for any other code below 128. */
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let digit = 0; digit < BASE; digit += 1) DIGIT_OF[ALPHABET.charCodeAt(digit)] = digit;

/** The character codes of the id being built, and the random digits of the id at hand (one at a time). */
const codes = new Uint8Array(GENERATED_ID_LENGTH);
const randomDigits = new Int32Array(RANDOMS);

/** Random digits packed into each of the two numbers that keep them (62^7 < 2^53). */
const PACKED_DIGITS = 7;

/**
 * The id generated last, its orderId and its packed random digits. The order it was made for is
 * usually recorded (and asked whether its id names it) in the same operation: that question is
 * then one comparison instead of a decoding. A text decodes to one orderId only, so the answer is
 * the decoding's.
 */
const newest = { text: "", orderId: -1, high: 0, low: 0 };

/** The clientOrderId generated for order `orderId` (a safe non-negative integer). */
export function generatedClientOrderId(random: Random, orderId: number): string {
  if (!(Number.isSafeInteger(orderId) && orderId >= 0)) {
    throw new RangeError(`a generated client order id needs a safe non-negative orderId, got ${orderId}`);
  }
  for (let draw = 0, r = 0; draw < DRAWS; draw += 1) {
    let value = random.int(0, DRAW_RANGE - 1);
    for (let k = 0; k < DIGITS_PER_DRAW && r < RANDOMS; k += 1, r += 1) {
      const next = Math.floor(value / BASE);
      const digit = value - next * BASE;
      randomDigits[r] = digit;
      codes[RANDOM_PLACES[r] as number] = ALPHABET.charCodeAt(digit);
      value = next;
    }
  }
  random.skip(DRAWS_PER_ID - DRAWS);
  const text = idWithDigitsOf(orderId);
  newest.text = text;
  newest.orderId = orderId;
  newest.high = packDigits(0, PACKED_DIGITS);
  newest.low = packDigits(PACKED_DIGITS, RANDOMS);
  return text;
}

/** The id of the random digits in `randomDigits` and `codes` for `orderId`. */
function idWithDigitsOf(orderId: number): string {
  let rest = orderId;
  for (let i = 0; i < ID_DIGITS; i += 1) {
    const next = Math.floor(rest / BASE);
    const digit = rest - next * BASE;
    rest = next;
    codes[ID_PLACES[i] as number] = ALPHABET.charCodeAt((digit + shift(i)) % BASE);
  }
  return idText();
}

/**
 * A generated id that names `orderId`, kept as two numbers instead of a string: its random digits
 * in base 62 (the orderId's digits follow from them). Writes them at `into[at]` and `into[at + 1]`;
 * false, writing nothing, when `clientOrderId` does not name `orderId` (a client chose it).
 */
export function packGeneratedId(
  clientOrderId: string,
  orderId: number,
  into: Float64Array,
  at: number,
): boolean {
  if (clientOrderId === newest.text) {
    if (orderId !== newest.orderId) return false;
    into[at] = newest.high;
    into[at + 1] = newest.low;
    return true;
  }
  if (!namesItsOrder(clientOrderId, orderId)) return false;
  into[at] = packDigits(0, PACKED_DIGITS);
  into[at + 1] = packDigits(PACKED_DIGITS, RANDOMS);
  return true;
}

/** The generated id of `orderId` whose random digits `packGeneratedId` packed into `high` and `low`. */
export function unpackGeneratedId(orderId: number, high: number, low: number): string {
  unpackDigits(high, 0, PACKED_DIGITS);
  unpackDigits(low, PACKED_DIGITS, RANDOMS);
  for (let r = 0; r < RANDOMS; r += 1)
    codes[RANDOM_PLACES[r] as number] = ALPHABET.charCodeAt(randomDigits[r] as number);
  return idWithDigitsOf(orderId);
}

function packDigits(from: number, to: number): number {
  let packed = 0;
  for (let r = to - 1; r >= from; r -= 1) packed = packed * BASE + (randomDigits[r] as number);
  return packed;
}

function unpackDigits(packed: number, from: number, to: number): void {
  let rest = packed;
  for (let r = from; r < to; r += 1) {
    const next = Math.floor(rest / BASE);
    randomDigits[r] = rest - next * BASE;
    rest = next;
  }
}

/**
 * The orderId that `clientOrderId` names if it was generated; undefined when it cannot have been.
 * Any 22 characters of the alphabet decode to some number: the caller checks that the order with
 * that id has this clientOrderId.
 */
export function generatedOrderId(clientOrderId: string): number | undefined {
  if (!readRandomDigits(clientOrderId)) return undefined;
  let orderId = 0;
  for (let i = ID_DIGITS - 1; i >= 0; i -= 1) {
    const digit = idDigit(clientOrderId, i);
    if (digit < 0) return undefined;
    orderId = orderId * BASE + digit;
  }
  return orderId <= Number.MAX_SAFE_INTEGER ? orderId : undefined;
}

/**
 * Whether `clientOrderId` decodes to `orderId` (`generatedOrderId(clientOrderId) === orderId`):
 * its order is then found by decoding, with no map entry. Compares from the least significant
 * digit, so most ids that clients choose are told apart at the first.
 */
export function namesItsOrder(clientOrderId: string, orderId: number): boolean {
  if (clientOrderId === newest.text) return orderId === newest.orderId;
  if (!(Number.isSafeInteger(orderId) && orderId >= 0) || !readRandomDigits(clientOrderId)) return false;
  let rest = orderId;
  for (let i = 0; i < ID_DIGITS; i += 1) {
    const next = Math.floor(rest / BASE);
    if (idDigit(clientOrderId, i) !== rest - next * BASE) return false;
    rest = next;
  }
  return true;
}

/** Reads the random digits of a would-be generated id into `randomDigits`; false if it cannot be one. */
function readRandomDigits(clientOrderId: string): boolean {
  if (clientOrderId.length !== GENERATED_ID_LENGTH) return false;
  for (let r = 0; r < RANDOMS; r += 1) {
    const digit = digitAt(clientOrderId, RANDOM_PLACES[r] as number);
    if (digit < 0) return false;
    randomDigits[r] = digit;
  }
  return true;
}

/** The orderId's digit `i` (of the random digits read last); -1 for a character outside the alphabet. */
function idDigit(clientOrderId: string, i: number): number {
  const shifted = digitAt(clientOrderId, ID_PLACES[i] as number);
  return shifted < 0 ? -1 : (shifted - shift(i) + BASE) % BASE;
}

/** The three random digits that shift the orderId's digit `i`, by place among the random ones. */
const SHIFT_FROM_A = Int8Array.from({ length: ID_DIGITS }, (_, i) => i);
const SHIFT_FROM_B = Int8Array.from({ length: ID_DIGITS }, (_, i) => (i + 3) % RANDOMS);
const SHIFT_FROM_C = Int8Array.from({ length: ID_DIGITS }, (_, i) => (i + 7) % RANDOMS);

/**
 * What the orderId's digit `i` is shifted by (0 to 61): three of the random digits, each times a
 * number prime to 62 (so the sum stays uniform), so that a small orderId's zero digits do not show
 * as repeats of the random ones.
 */
function shift(i: number): number {
  return (
    (7 * (randomDigits[SHIFT_FROM_A[i] as number] as number) +
      11 * (randomDigits[SHIFT_FROM_B[i] as number] as number) +
      13 * (randomDigits[SHIFT_FROM_C[i] as number] as number) +
      5 * i) %
    BASE
  );
}

/** The id's text from `codes` (one call with the 22 codes: no spread, no joins). */
function idText(): string {
  const c = codes;
  return String.fromCharCode(
    c[0] as number,
    c[1] as number,
    c[2] as number,
    c[3] as number,
    c[4] as number,
    c[5] as number,
    c[6] as number,
    c[7] as number,
    c[8] as number,
    c[9] as number,
    c[10] as number,
    c[11] as number,
    c[12] as number,
    c[13] as number,
    c[14] as number,
    c[15] as number,
    c[16] as number,
    c[17] as number,
    c[18] as number,
    c[19] as number,
    c[20] as number,
    c[21] as number,
  );
}

function digitAt(text: string, place: number): number {
  const code = text.charCodeAt(place);
  return code < 128 ? (DIGIT_OF[code] as number) : -1;
}
