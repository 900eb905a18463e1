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
const BASE = ALPHABET.length;
export const GENERATED_ID_LENGTH = 22;
/** Base-62 digits of an orderId (62^9 > 2^53, so every safe integer fits). */
const ID_DIGITS = 9;
/** Where the orderId's digits go (least significant first); the other places hold random digits. */
const ID_PLACES = [2, 20, 5, 13, 17, 8, 0, 11, 15];
const RANDOM_PLACES = Array.from({ length: GENERATED_ID_LENGTH }, (_, i) => i).filter(
  (place) => !ID_PLACES.includes(place),
);
/** Random digits drawn from one 32-bit draw (62^5 < 2^32). */
const DIGITS_PER_DRAW = 5;
const DRAW_RANGE = BASE ** DIGITS_PER_DRAW;
const DRAWS = Math.ceil(RANDOM_PLACES.length / DIGITS_PER_DRAW);
/**
 * A generated id advances the generator as the 22 single-character draws of the ids before it did,
 * so the ids drawn after it (cancel reports' clientOrderIds) and the saved generator state are
 * what they were.
 */
const DRAWS_PER_ID = GENERATED_ID_LENGTH;

/** The digit of each character code of the alphabet; -1 for any other code below 128. */
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let digit = 0; digit < BASE; digit += 1) DIGIT_OF[ALPHABET.charCodeAt(digit)] = digit;

/** The character codes of the id being built (ids are built one at a time). */
const codes: number[] = new Array<number>(GENERATED_ID_LENGTH).fill(0);
const randomDigits = new Int8Array(RANDOM_PLACES.length);

/** The clientOrderId generated for order `orderId` (a safe non-negative integer). */
export function generatedClientOrderId(random: Random, orderId: number): string {
  if (!(Number.isSafeInteger(orderId) && orderId >= 0)) {
    throw new RangeError(`a generated client order id needs a safe non-negative orderId, got ${orderId}`);
  }
  for (let draw = 0, r = 0; draw < DRAWS; draw += 1) {
    let value = random.int(0, DRAW_RANGE - 1);
    for (let k = 0; k < DIGITS_PER_DRAW && r < RANDOM_PLACES.length; k += 1, r += 1) {
      randomDigits[r] = value % BASE;
      value = Math.floor(value / BASE);
    }
  }
  random.skip(DRAWS_PER_ID - DRAWS);
  for (let r = 0; r < RANDOM_PLACES.length; r += 1) {
    codes[RANDOM_PLACES[r] as number] = ALPHABET.charCodeAt(randomDigits[r] as number);
  }
  let rest = orderId;
  for (let i = 0; i < ID_DIGITS; i += 1) {
    const digit = rest % BASE;
    rest = Math.floor(rest / BASE);
    codes[ID_PLACES[i] as number] = ALPHABET.charCodeAt((digit + shift(randomDigits, i)) % BASE);
  }
  return String.fromCharCode(...codes);
}

/**
 * The orderId that `clientOrderId` names if it was generated; undefined when it cannot have been.
 * Any 22 characters of the alphabet decode to some number: the caller checks that the order with
 * that id has this clientOrderId.
 */
export function generatedOrderId(clientOrderId: string): number | undefined {
  if (clientOrderId.length !== GENERATED_ID_LENGTH) return undefined;
  for (let place = 0; place < GENERATED_ID_LENGTH; place += 1) {
    if (digitAt(clientOrderId, place) < 0) return undefined;
  }
  for (let r = 0; r < RANDOM_PLACES.length; r += 1) {
    randomDigits[r] = digitAt(clientOrderId, RANDOM_PLACES[r] as number);
  }
  let orderId = 0;
  for (let i = ID_DIGITS - 1; i >= 0; i -= 1) {
    const shifted = digitAt(clientOrderId, ID_PLACES[i] as number);
    orderId = orderId * BASE + ((shifted - shift(randomDigits, i) + BASE) % BASE);
  }
  return orderId <= Number.MAX_SAFE_INTEGER ? orderId : undefined;
}

/** Whether `clientOrderId` decodes to `orderId`: its order is then found by decoding, with no map entry. */
export function namesItsOrder(clientOrderId: string, orderId: number): boolean {
  return generatedOrderId(clientOrderId) === orderId;
}

/**
 * What the orderId's digit `i` is shifted by (0 to 61): three of the random digits, each times a number prime
 * to 62 (so the sum stays uniform), so that the small orderId's zero digits do not show as repeats
 * of the random ones.
 */
function shift(random: Int8Array, i: number): number {
  const n = random.length;
  return (
    (7 * (random[i] as number) +
      11 * (random[(i + 3) % n] as number) +
      13 * (random[(i + 7) % n] as number) +
      5 * i) %
    BASE
  );
}

function digitAt(text: string, place: number): number {
  const code = text.charCodeAt(place);
  return code < 128 ? (DIGIT_OF[code] as number) : -1;
}
