/**
 * Exact decimal arithmetic for prices and quantities (bigint scaled by 10^20), enough to place
 * orders that pass PRICE_FILTER, LOT_SIZE and NOTIONAL without floating-point surprises.
 */
const SCALE_DIGITS = 20;
const SCALE = 10n ** BigInt(SCALE_DIGITS);

export type Dec = bigint;

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

export function parseDec(text: string): Dec {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const [, sign, whole, fraction = ""] = match;
  const digits = `${whole}${fraction.padEnd(SCALE_DIGITS, "0").slice(0, SCALE_DIGITS)}`;
  const value = BigInt(digits);
  return sign === "-" ? -value : value;
}

export function tryParseDec(value: unknown): Dec | undefined {
  if (typeof value !== "string" || !DECIMAL.test(value.trim())) return undefined;
  return parseDec(value);
}

/** Plain decimal text without trailing zeros ("12000", "0.00043"). */
export function formatDec(value: Dec): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / SCALE;
  const fraction = (abs % SCALE).toString().padStart(SCALE_DIGITS, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export function mul(a: Dec, b: Dec): Dec {
  return (a * b) / SCALE;
}

/** a / b rounded down. */
export function div(a: Dec, b: Dec): Dec {
  return (a * SCALE) / b;
}

export function fromRatio(numerator: number, denominator: number): Dec {
  return (BigInt(numerator) * SCALE) / BigInt(denominator);
}

export function ceilToStep(value: Dec, step: Dec): Dec {
  if (step <= 0n) return value;
  const floored = (value / step) * step;
  return floored < value ? floored + step : floored;
}

export function floorToStep(value: Dec, step: Dec): Dec {
  if (step <= 0n) return value;
  return (value / step) * step;
}

/** The largest of the values (Math.max does not take bigints). */
export function maxDec(first: Dec, ...rest: Dec[]): Dec {
  let best = first;
  for (const value of rest) if (value > best) best = value;
  return best;
}

/** 10^-digits: the smallest step of a precision. */
export function unitOf(digits: number): Dec {
  return SCALE / 10n ** BigInt(Math.max(0, Math.min(SCALE_DIGITS, digits)));
}

export const ZERO: Dec = 0n;
