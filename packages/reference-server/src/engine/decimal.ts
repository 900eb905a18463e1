/**
 * Exact fixed-point decimals for prices, quantities and balances.
 *
 * A value is a bigint holding the number scaled by 10^20. Twenty fractional digits is
 * what the wire format allows, so every valid request value is represented exactly and
 * price × quantity of two 8-decimal values never loses a digit.
 */

export type Decimal = bigint;

export const SCALE = 20;
const UNIT = 10n ** BigInt(SCALE);

export const ZERO: Decimal = 0n;
export const ONE: Decimal = UNIT;

/** The server regex for DECIMAL parameters (no sign, no exponent, 20+20 digits). */
export const DECIMAL_PATTERN = "^([0-9]{1,20})(\\.[0-9]{1,20})?$";
const WIRE = new RegExp(DECIMAL_PATTERN);
const SIGNED_PLAIN = /^(-?)([0-9]+)(?:\.([0-9]{1,20}))?$/;

/** Parses a wire decimal; undefined when the text breaks the server regex. */
export function tryParse(text: string): Decimal | undefined {
  const match = WIRE.exec(text);
  if (!match) return undefined;
  return fromParts(match[1] ?? "0", (match[2] ?? ".").slice(1));
}

/** Parses a wire decimal; throws a RangeError naming the text when it is malformed. */
export function parse(text: string): Decimal {
  const value = tryParse(text);
  if (value === undefined) throw new RangeError(`Not a plain decimal: "${text}"`);
  return value;
}

/** Reads what `toPlain` wrote; also accepts a sign, because internal values can be negative. */
export function fromPlain(text: string): Decimal {
  const match = SIGNED_PLAIN.exec(text);
  if (!match) throw new RangeError(`Not a plain decimal: "${text}"`);
  const magnitude = fromParts(match[2] ?? "0", match[3] ?? "");
  return match[1] === "-" ? -magnitude : magnitude;
}

/** One BigInt of the digits, the fraction padded to SCALE places (no multiply, no add). */
function fromParts(integerDigits: string, fractionDigits: string): Decimal {
  return BigInt(integerDigits + fractionDigits.padEnd(SCALE, "0"));
}

export function fromInteger(value: number | bigint): Decimal {
  return BigInt(value) * UNIT;
}

/** Fixed number of decimals, truncated toward zero: format(parse("0.1"), 8) === "0.10000000". */
export function format(value: Decimal, decimals: number): string {
  // Zero is common (a new order's executed quantities, origQuoteOrderQty), and needs no division.
  if (value === 0n) return ZEROS[decimals] ?? formatAnyDecimals(value, decimals);
  const sign = value < 0n ? "-" : "";
  if (!(Number.isInteger(decimals) && decimals >= 0)) return sign + formatAnyDecimals(value, decimals);
  if (decimals >= SCALE) return sign + plainDigits(abs(value), SCALE);
  // One division: the magnitude in units of the last kept decimal (truncating drops the rest).
  return sign + plainDigits(abs(value) / (QUANTA[decimals] as bigint), decimals);
}

/** The general form (what `format` gives for any `decimals`, also ones no symbol has). */
function formatAnyDecimals(value: Decimal, decimals: number): string {
  const truncated = abs(truncate(value, decimals));
  const integerPart = (truncated / UNIT).toString();
  if (decimals === 0) return integerPart;
  const fraction = (truncated % UNIT).toString().padStart(SCALE, "0").slice(0, decimals);
  return `${integerPart}.${fraction}`;
}

/** `units` (a count of 10^-decimals) as text with exactly `decimals` decimals. */
function plainDigits(units: bigint, decimals: number): string {
  const digits = units.toString();
  if (decimals === 0) return digits;
  const padded = digits.length > decimals ? digits : digits.padStart(decimals + 1, "0");
  const point = padded.length - decimals;
  return `${padded.slice(0, point)}.${padded.slice(point)}`;
}

/** Zero with 0 to SCALE decimals ("0", "0.0", …), as `format` writes it. */
const ZEROS: readonly string[] = Array.from({ length: SCALE + 1 }, (_, decimals) =>
  decimals === 0 ? "0" : `0.${"0".repeat(decimals)}`,
);

/** 10^(SCALE - decimals): the smallest step kept with `decimals` decimals, computed once each. */
const QUANTA: readonly bigint[] = Array.from(
  { length: SCALE + 1 },
  (_, decimals) => 10n ** BigInt(SCALE - decimals),
);

function quantum(decimals: number): bigint {
  return (
    (decimals >= 0 && Number.isInteger(decimals) ? QUANTA[decimals] : undefined) ??
    10n ** BigInt(SCALE - decimals)
  );
}

/** Shortest exact text (no trailing zeros), used for persisted state. */
export function toPlain(value: Decimal): string {
  if (value === 0n) return "0";
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString();
  const integerPart = digits.length > SCALE ? digits.slice(0, -SCALE) : "0";
  const fraction = digits.length > SCALE ? digits.slice(-SCALE) : digits.padStart(SCALE, "0");
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end -= 1;
  const text = end === 0 ? integerPart : `${integerPart}.${fraction.slice(0, end)}`;
  return negative ? `-${text}` : text;
}

export function add(a: Decimal, b: Decimal): Decimal {
  return a + b;
}

export function sub(a: Decimal, b: Decimal): Decimal {
  return a - b;
}

/** Product, rounded toward zero at the 20th decimal. */
export function mul(a: Decimal, b: Decimal): Decimal {
  return (a * b) / UNIT;
}

/** Quotient, rounded toward zero at the 20th decimal. */
export function div(a: Decimal, b: Decimal): Decimal {
  if (b === 0n) throw new RangeError("Division by zero");
  return (a * UNIT) / b;
}

export function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function min(a: Decimal, b: Decimal): Decimal {
  return a < b ? a : b;
}

export function max(a: Decimal, b: Decimal): Decimal {
  return a > b ? a : b;
}

export function abs(a: Decimal): Decimal {
  return a < 0n ? -a : a;
}

export function isZero(a: Decimal): boolean {
  return a === 0n;
}

/** Cuts digits after `decimals` places, toward zero. */
export function truncate(value: Decimal, decimals: number): Decimal {
  if (decimals >= SCALE) return value;
  return value - (value % quantum(decimals));
}

/** True when the value has no significant digit after `decimals` places. */
export function fitsDecimals(value: Decimal, decimals: number): boolean {
  return truncate(value, decimals) === value;
}

/** Largest multiple of `step` not above a non-negative value; a zero step disables the rounding. */
export function floorToStep(value: Decimal, step: Decimal): Decimal {
  if (step === 0n) return value;
  return value - (value % step);
}

/** Whether `value - origin` is a whole number of steps; a zero step always passes. */
export function isOnStep(value: Decimal, origin: Decimal, step: Decimal): boolean {
  if (step === 0n) return true;
  return (value - origin) % step === 0n;
}

export function sum(values: Iterable<Decimal>): Decimal {
  let total = ZERO;
  for (const value of values) total += value;
  return total;
}
