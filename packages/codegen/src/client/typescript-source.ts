// Small helpers for emitting TypeScript source text from spec values. Everything that comes from the
// spec and ends up in code goes through them, so a name or a description can never break out of
// the string literal or comment it belongs to.

/** A double-quoted TypeScript string literal (JSON string syntax is valid TypeScript). */
export function stringLiteral(value: string): string {
  return JSON.stringify(value);
}

/** An object key: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : stringLiteral(name);
}

/** A JSDoc block at `indent`; `*\/` inside the text is defused. Empty lines are kept as ` *`. */
export function docComment(lines: string[], indent: string): string {
  const body = lines
    .flatMap((line) => line.split("\n"))
    .map((line) => line.replace(/\*\//g, "*\\/").trimEnd())
    .map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`));
  return [`${indent}/**`, ...body, `${indent} */`].join("\n");
}

/** The line width of the repository's formatter (Biome); emitted code breaks lines as it would. */
export const LINE_WIDTH = 110;

/** An array of string literals, on one line when it fits after `prefix`, else one item a line. */
export function stringArray(values: readonly string[], prefix: string, suffix: string): string {
  const inline = `${prefix}[${values.map(stringLiteral).join(", ")}]${suffix}`;
  if (inline.length <= LINE_WIDTH || values.length === 0) return inline;
  const indent = /^\s*/.exec(prefix)?.[0] ?? "";
  const items = values.map((v) => `${indent}  ${stringLiteral(v)},`);
  return [`${prefix}[`, ...items, `${indent}]${suffix}`].join("\n");
}

/** A method signature (`name(a, b): R;`), its parameters one a line when it does not fit. */
export function methodSignature(indent: string, name: string, params: string[], returns: string): string {
  const inline = `${indent}${name}(${params.join(", ")}): ${returns};`;
  if (inline.length <= LINE_WIDTH) return inline;
  return [
    `${indent}${name}(`,
    ...params.map((p) => parameterLines(`${indent}  `, p)),
    `${indent}): ${returns};`,
  ].join("\n");
}

/** A parameter on its line, or, as Biome breaks an intersection too long for one, a member a line. */
function parameterLines(indent: string, parameter: string): string {
  const line = `${indent}${parameter},`;
  const members = parameter.split(" & ");
  if (line.length <= LINE_WIDTH || members.length < 2) return line;
  return members
    .map((member, i) => `${indent}${i === 0 ? "" : "  "}${member}${i < members.length - 1 ? " &" : ","}`)
    .join("\n");
}
