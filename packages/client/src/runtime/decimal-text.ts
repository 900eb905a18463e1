// Decimal parameters take a number or decimal text; text is checked against the parameter's
// x-wire-pattern before anything is sent, and then sent exactly as written.

/** Each operation's decimal parameters with their patterns compiled, by the operation's table of them. */
const compiled = new WeakMap<Readonly<Record<string, string>>, readonly (readonly [string, RegExp])[]>();

function compile(decimals: Readonly<Record<string, string>>): readonly (readonly [string, RegExp])[] {
  let rules = compiled.get(decimals);
  if (rules === undefined) {
    rules = Object.entries(decimals).map(([name, pattern]) => [name, new RegExp(pattern, "u")] as const);
    compiled.set(decimals, rules);
  }
  return rules;
}

/** Throws a TypeError naming the parameter when a decimal parameter's text does not match its pattern. */
export function checkDecimalText(
  operationId: string,
  decimals: Readonly<Record<string, string>> | undefined,
  params: Readonly<Record<string, unknown>> | undefined,
): void {
  if (decimals === undefined || params === undefined) return;
  for (const [name, pattern] of compile(decimals)) {
    const value = params[name];
    if (typeof value === "string" && !pattern.test(value))
      throw new TypeError(
        `${operationId}: ${name} must be a number or decimal text matching ${decimals[name]}, got ${JSON.stringify(value)}`,
      );
  }
}
