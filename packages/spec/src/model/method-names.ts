// The name of an operation's method in generated code. An operationId that is already an
// identifier is the name as it is (`order_book`, `aggTrades`); any other (`get-stations`,
// `users.list`, `GET /pets`) is split at the characters an identifier cannot hold and written in
// camel case (`getStations`, `usersList`, `GETPets`), as other generators do. Codegen refuses two
// operations whose names come out the same; the docs' TypeScript samples call the same names.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The method name of an operationId; "" when it holds no letter or digit at all. */
export function methodNameOf(operationId: string): string {
  if (IDENTIFIER.test(operationId)) return operationId;
  const words = operationId.split(/[^A-Za-z0-9_$]+/).filter((word) => word !== "");
  const name = words
    .map((word, index) => (index === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join("");
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** Whether a name can be written as a bare identifier (no quotes). */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}
