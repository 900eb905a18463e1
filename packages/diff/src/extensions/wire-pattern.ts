// x-wire-pattern on a parameter's schema: the text the value must match on the wire. Compared
// as schema-diff compares `pattern`: added narrows, removed widens, changed is undecidable; the
// direction (request or response) then gives the class.

/** A schema extension, compared by one of schema-diff's keyword rules. */
export interface SchemaExtensionRule {
  key: string;
  /** The keyword rule it shares: "text" (format, pattern). */
  compareAs: "text";
}

export const wirePattern: SchemaExtensionRule = { key: "x-wire-pattern", compareAs: "text" };
