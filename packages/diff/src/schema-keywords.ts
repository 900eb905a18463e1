// The rules of the schema keywords that schema-diff.ts's set rules do not cover: the applicators
// of JSON Schema 2020-12 that the set rules leave out (not, if/then/else, dependentRequired,
// dependentSchemas, patternProperties, unevaluatedItems), the content keywords, OpenAPI's own
// (readOnly, writeOnly, discriminator, xml) and the identifiers. With schema-diff.ts's table they
// give every keyword of JSON Schema 2020-12 and of OpenAPI 3.0 and 3.1 a rule (KEYWORD_RULES, which
// test/keywords.test.ts holds to the specifications' lists); a keyword of neither is an
// annotation to a validator, and is reported as one.
import type { Direction, Effect } from "./change.js";
import { type At, type Comparison, child, isObject, same, show } from "./comparison.js";

export type CompareSchema = (c: Comparison, o: At, n: At, direction: Direction) => void;
export type Rule = (c: Comparison, o: At, n: At, direction: Direction) => void;

const keyOf = (at: At, key: string): unknown => (at.value as Record<string, unknown>)[key];

/** Whether the schema of `direction` is the body of an HTTP request (a webhook turns the roles round). */
function isHttpRequest(c: Comparison, direction: Direction): boolean {
  return (direction === "request") === (c.words.request === "request");
}

function effectMessage(direction: Direction, e: Effect): string {
  if (e === "different") return "values valid before may be refused, and new ones appear";
  if (direction === "request")
    return e === "narrower"
      ? "requests that were valid can now be refused"
      : "implementations must accept more";
  return e === "wider"
    ? "clients may receive values they were not built for"
    : "implementations must answer within less";
}

function moved(c: Comparison, o: At, n: At, d: Direction, key: string, e: Effect, what: string): void {
  c.reportEffect(
    child(o, key),
    child(n, key),
    d,
    e,
    `${key}-${e}`,
    `${c.words[d]} ${what}: ${effectMessage(d, e)}`,
  );
}

/**
 * A keyword holding one subschema that constrains the instance (dependentSchemas' entries,
 * contentSchema): absent is the schema `true`, so adding one narrows; compared as a schema.
 */
export const subschema =
  (compare: CompareSchema, key: string): Rule =>
  (c, o, n, d) =>
    compare(c, child(o, key), child(n, key), d);

/** `not`: what its schema accepts is refused, so the effect turns round; a changed one is undecided by set. */
export const notRule: Rule = (c, o, n, d) => {
  const before = keyOf(o, "not");
  const after = keyOf(n, "not");
  if (same(before, after)) return;
  if (before === undefined) return moved(c, o, n, d, "not", "narrower", `schema gained "not" ${show(after)}`);
  if (after === undefined) return moved(c, o, n, d, "not", "wider", `schema lost "not" ${show(before)}`);
  moved(c, o, n, d, "not", "different", `"not" changed from ${show(before)} to ${show(after)}`);
};

/**
 * if/then/else: with the same `if`, `then` and `else` constrain the instances on each side of it
 * and compare as schemas (absent is `true`); a changed `if` moves instances between the branches.
 */
export const conditionalRule =
  (compare: CompareSchema): Rule =>
  (c, o, n, d) => {
    if (!same(keyOf(o, "if"), keyOf(n, "if"))) {
      const [before, after] = [keyOf(o, "if"), keyOf(n, "if")];
      const hasBranches = (at: At) => keyOf(at, "then") !== undefined || keyOf(at, "else") !== undefined;
      if (!hasBranches(o) && !hasBranches(n)) return; // an `if` alone constrains nothing
      // A condition added whole only constrains more; one removed whole, less.
      if (before === undefined && !hasBranches(o))
        return moved(c, o, n, d, "if", "narrower", `schema gained a condition ("if" ${show(after)})`);
      if (after === undefined && !hasBranches(n))
        return moved(c, o, n, d, "if", "wider", `schema lost its condition ("if" ${show(before)})`);
      return moved(
        c,
        o,
        n,
        d,
        "if",
        "different",
        `"if" changed from ${show(before)} to ${show(after)}, so other instances meet "then" and "else"`,
      );
    }
    for (const key of ["then", "else"]) compare(c, child(o, key), child(n, key), d);
  };

/** dependentRequired: a name required when another is present. More names narrow, fewer widen. */
export const dependentRequiredRule: Rule = (c, o, n, d) => {
  const table = (at: At) =>
    isObject(keyOf(at, "dependentRequired"))
      ? (keyOf(at, "dependentRequired") as Record<string, unknown>)
      : {};
  const before = table(o);
  const after = table(n);
  for (const property of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const list = (t: Record<string, unknown>) =>
      Array.isArray(t[property]) ? (t[property] as unknown[]) : [];
    const gained = list(after).filter((name) => !list(before).includes(name));
    const lost = list(before).filter((name) => !list(after).includes(name));
    const at = (at: At) => child(at, "dependentRequired", property);
    if (gained.length > 0)
      c.reportEffect(
        at(o),
        at(n),
        d,
        "narrower",
        "dependent-required-added",
        `${c.words[d]} property "${property}" now also requires ${gained.map((x) => show(x)).join(", ")}: ${effectMessage(d, "narrower")}`,
      );
    if (lost.length > 0)
      c.reportEffect(
        at(o),
        at(n),
        d,
        "wider",
        "dependent-required-removed",
        `${c.words[d]} property "${property}" no longer requires ${lost.map((x) => show(x)).join(", ")}: ${effectMessage(d, "wider")}`,
      );
  }
};

/** dependentSchemas: each entry a subschema applied when its property is present. */
export const dependentSchemasRule =
  (compare: CompareSchema): Rule =>
  (c, o, n, d) => {
    const names = (at: At) =>
      Object.keys(isObject(keyOf(at, "dependentSchemas")) ? (keyOf(at, "dependentSchemas") as object) : {});
    for (const name of new Set([...names(o), ...names(n)])) {
      compare(c, child(o, "dependentSchemas", name), child(n, "dependentSchemas", name), d);
    }
  };

/**
 * patternProperties: each pattern's schema constrains the properties it matches, compared as a
 * schema. A pattern added or removed also moves properties out of (or into) additionalProperties'
 * and unevaluatedProperties' reach; where either is closed that is a change of both signs.
 */
export const patternPropertiesRule =
  (compare: CompareSchema): Rule =>
  (c, o, n, d) => {
    const patterns = (at: At) =>
      Object.keys(isObject(keyOf(at, "patternProperties")) ? (keyOf(at, "patternProperties") as object) : {});
    const closed = (at: At) =>
      ["additionalProperties", "unevaluatedProperties"].some(
        (key) => keyOf(at, key) !== undefined && keyOf(at, key) !== true,
      );
    for (const pattern of new Set([...patterns(o), ...patterns(n)])) {
      const before = child(o, "patternProperties", pattern);
      const after = child(n, "patternProperties", pattern);
      const onlyOne = (before.value === undefined) !== (after.value === undefined);
      if (onlyOne && (closed(o) || closed(n))) {
        c.reportEffect(
          before,
          after,
          d,
          "different",
          "pattern-properties-changed",
          `${c.words[d]} properties matching ${show(pattern)} ${after.value === undefined ? "are no longer described by a pattern" : "are now described by a pattern"}, which moves them out of or into additionalProperties' reach: ${effectMessage(d, "different")}`,
        );
      } else compare(c, before, after, d);
    }
  };

/** contentMediaType and contentEncoding: how a string carries another document, a fact of the wire. */
export const contentRule =
  (key: "contentMediaType" | "contentEncoding"): Rule =>
  (c, o, n, d) => {
    const before = keyOf(o, key);
    const after = keyOf(n, key);
    if (same(before, after)) return;
    moved(
      c,
      o,
      n,
      d,
      key,
      "different",
      `${key} changed from ${show(before)} to ${show(after)}: the string is encoded otherwise`,
    );
  };

/**
 * readOnly and writeOnly (OpenAPI): a readOnly property is not sent in requests, a writeOnly one
 * not in responses. Becoming one of them where it applies is the property leaving that message
 * (as a property removed: breaking), ceasing to be is the property appearing (compatible); in the
 * other message it says nothing.
 */
export const visibilityRule: Rule = (c, o, n, d) => {
  const hiddenBy = isHttpRequest(c, d) ? "readOnly" : "writeOnly";
  for (const key of ["readOnly", "writeOnly"] as const) {
    const before = keyOf(o, key) === true;
    const after = keyOf(n, key) === true;
    if (before === after) continue;
    if (key !== hiddenBy) {
      c.report(child(o, key), child(n, key), {
        kind: `${key}-changed`,
        class: "informational",
        message: `${key} ${after ? "set" : "removed"}, which concerns only ${key === "readOnly" ? "requests" : "responses"}`,
      });
      continue;
    }
    const readers = d === "request" ? "implementations" : "clients";
    c.report(child(o, key), child(n, key), {
      kind: after ? `${key}-set` : `${key}-removed`,
      class: after ? "breaking" : "compatible",
      breaksImplementations: d === "request",
      message: after
        ? `${c.words[d]} value is now ${key}, so it is no longer sent: ${d === "request" ? "clients that send it are refused or ignored" : `${readers} that read it find nothing`}`
        : `${c.words[d]} value is no longer ${key}, so it may now be sent: ${readers} ${d === "request" ? "must accept it" : "ignore what they do not know"}`,
    });
  }
};

/**
 * discriminator (OpenAPI): which alternative of a oneOf or anyOf a value is, by one property.
 * Generated clients pick the type by it: a new property name or a mapping entry that names
 * another schema (or is gone) sends values to other types; an added mapping entry or a
 * discriminator added or removed as a whole changes which values are valid not at all.
 */
export const discriminatorRule: Rule = (c, o, n) => {
  const before = child(o, "discriminator");
  const after = child(n, "discriminator");
  if (same(before.value, after.value)) return;
  if (before.value === undefined || after.value === undefined) {
    c.report(before, after, {
      kind: "discriminator-changed",
      class: "informational",
      message: `discriminator ${after.value === undefined ? "removed" : "added"}: a hint for choosing among the alternatives, which decide what is valid`,
    });
    return;
  }
  const name = (at: At) => keyOf(at, "propertyName");
  if (!same(name(before), name(after))) {
    c.report(child(before, "propertyName"), child(after, "propertyName"), {
      kind: "discriminator-changed",
      class: "breaking",
      breaksImplementations: true,
      message: `discriminator propertyName changed from ${show(name(before))} to ${show(name(after))}: generated clients choose the type by another property`,
    });
  }
  const mapping = (at: At) =>
    isObject(keyOf(at, "mapping")) ? (keyOf(at, "mapping") as Record<string, unknown>) : {};
  for (const value of new Set([...Object.keys(mapping(before)), ...Object.keys(mapping(after))])) {
    const [was, is] = [mapping(before)[value], mapping(after)[value]];
    if (same(was, is)) continue;
    const at = (side: At) => child(side, "mapping", value);
    c.report(at(before), at(after), {
      kind: was === undefined ? "discriminator-mapping-added" : "discriminator-changed",
      class: was === undefined ? "compatible" : "breaking",
      breaksImplementations: true,
      message:
        was === undefined
          ? `discriminator value ${show(value)} now maps to ${show(is)}`
          : `discriminator value ${show(value)} ${is === undefined ? `no longer maps to ${show(was)}` : `maps to ${show(is)} instead of ${show(was)}`}: generated clients read such values as another type`,
    });
  }
};

/**
 * xml (OpenAPI): how the schema is written as XML (element names, attributes, wrapping). It changes
 * the bytes of XML bodies only: where neither document has an XML media type it is informational.
 */
export const xmlRule: Rule = (c, o, n, d) => {
  const before = keyOf(o, "xml");
  const after = keyOf(n, "xml");
  if (same(before, after)) return;
  if (hasXmlBodies(c)) {
    return moved(
      c,
      o,
      n,
      d,
      "xml",
      "different",
      `xml changed from ${show(before)} to ${show(after)}, so XML bodies are written otherwise`,
    );
  }
  c.report(child(o, "xml"), child(n, "xml"), {
    kind: "xml-changed",
    class: "informational",
    message: `xml changed from ${show(before)} to ${show(after)}: it shapes XML bodies only, and neither document has one`,
  });
};

const xmlBodies = new WeakMap<Comparison, boolean>();
/** Whether either document names an XML media type (application/xml, text/xml, …+xml) anywhere. */
function hasXmlBodies(c: Comparison): boolean {
  let known = xmlBodies.get(c);
  if (known === undefined) {
    const xml = /"[a-z]+\/(?:[^"]*\+)?xml(?:;[^"]*)?":/i;
    known = xml.test(JSON.stringify(c.oldDocument)) || xml.test(JSON.stringify(c.newDocument));
    xmlBodies.set(c, known);
  }
  return known;
}

/**
 * $dynamicRef: resolved at validation time through the dynamic scope, which this diff does not
 * follow: a change is left to a person.
 */
export const dynamicRefRule: Rule = (c, o, n, d) => {
  if (same(keyOf(o, "$dynamicRef"), keyOf(n, "$dynamicRef"))) return;
  c.reportEffect(
    child(o, "$dynamicRef"),
    child(n, "$dynamicRef"),
    d,
    "undecided",
    "schema-undecided",
    `${c.words[d]} schema's $dynamicRef changed from ${show(keyOf(o, "$dynamicRef"))} to ${show(keyOf(n, "$dynamicRef"))}: the diff does not follow dynamic references; check by hand whether clients break`,
  );
};

/**
 * Keywords that name or identify a schema, or say how to read it, without constraining instances
 * here: the diff resolves the document's own `$ref`s itself ($id and $anchor only matter to
 * references from outside it).
 */
export const IDENTIFIERS: readonly string[] = [
  "$id",
  "$schema",
  "$anchor",
  "$dynamicAnchor",
  "$vocabulary",
  "$comment",
];

/** The one message of a schema keyword that is neither JSON Schema 2020-12's nor OpenAPI's. */
export function unknownSchemaKeyword(key: string): string {
  return key.startsWith("x-")
    ? "an extension no rule here knows: it constrains nothing a validator checks"
    : `"${key}" is not a keyword of JSON Schema 2020-12 or OpenAPI, so validators take it as an annotation`;
}
