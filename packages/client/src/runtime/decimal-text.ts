// Decimal parameters take a number or decimal text; text is checked against the parameter's
// x-wire-pattern before anything is sent, and then sent exactly as written.

/** The patterns compiled so far, by their source: a call checks its decimal text against them. */
const compiled = new Map<string, RegExp>();

function compile(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, "u");
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Throws a TypeError naming the parameter when a decimal parameter's text does not match its pattern. */
export function checkDecimalText(
  operationId: string,
  decimals: Readonly<Record<string, string>> | undefined,
  params: Readonly<Record<string, unknown>> | undefined,
): void {
  for (const name in decimals) {
    const value = params?.[name];
    if (typeof value === "string" && !compile(decimals[name]!).test(value))
      throw new TypeError(
        `${operationId}: ${name} must be a number or decimal text matching ${decimals[name]}, got ${JSON.stringify(value)}`,
      );
  }
}
