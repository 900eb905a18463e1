// JSON Schema 2020-12 (as OpenAPI 3.1 uses it), compared as a set of accepted values: each keyword
// rule says whether the set got narrower or wider, and the direction table (change.ts) turns that
// into a class, for a request schema or a response schema.
import type { Direction, Effect } from "./change.js";
import { type At, type Comparison, canonical, child, isObject, same, show } from "./comparison.js";
import { SCHEMA_EXTENSIONS } from "./extensions/index.js";
import {
  conditionalRule,
  contentRule,
  dependentRequiredRule,
  dependentSchemasRule,
  discriminatorRule,
  dynamicRefRule,
  IDENTIFIERS,
  notRule,
  patternPropertiesRule,
  subschema,
  unknownSchemaKeyword,
  visibilityRule,
  xmlRule,
} from "./schema-keywords.js";
import { type NormalAt, normalise } from "./schema-normal.js";
import { ANNOTATION_KEYS, compareStructurally, unknownKey } from "./structural.js";

/** What each effect means for the reader, by direction; closes every message. */
function consequence(direction: Direction, effect: Effect): string {
  if (effect === "different") return "values valid before may be refused, and new ones appear";
  if (effect === "undecided") return "check by hand whether clients break";
  if (direction === "request") {
    return effect === "narrower"
      ? "requests that were valid can now be refused"
      : "implementations must accept more";
  }
  return effect === "wider"
    ? "clients may receive values they were not built for"
    : "implementations must answer within less";
}

type Rule = (c: Comparison, o: At, n: At, direction: Direction) => void;

const LOWER_BOUNDS = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"];
const UPPER_BOUNDS = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"];
/** Formats whose set of values contains another's. */
const FORMAT_WIDENINGS: Record<string, string> = { int32: "int64", float: "double" };

export function compareSchema(c: Comparison, oRaw: At, nRaw: At, direction: Direction): void {
  const o = normalise(c, oRaw, "old");
  const n = normalise(c, nRaw, "new");
  if (o.value === undefined && n.value === undefined) return;
  c.once(o, n, `${direction} ${c.words[direction]}`, () => compareResolved(c, o, n, direction));
}

/**
 * A schema normalisation left as written (an allOf it could not merge) compares with the other
 * side only where both are written alike, part by part; otherwise the diff says it cannot decide.
 */
function undecidable(o: NormalAt, n: NormalAt): string | undefined {
  const reason = o.unmerged ?? n.unmerged;
  if (reason === undefined) return undefined;
  const parts = (at: At) =>
    isObject(at.value) && Array.isArray(at.value.allOf) ? at.value.allOf.length : -1;
  if (o.unmerged !== undefined && n.unmerged !== undefined && parts(o) === parts(n)) return undefined;
  return reason;
}

function compareResolved(c: Comparison, o: NormalAt, n: NormalAt, direction: Direction): void {
  const effect = (e: Effect, kind: string, what: string) =>
    c.reportEffect(
      o,
      n,
      direction,
      e,
      kind,
      `${c.words[direction]} schema ${what}: ${consequence(direction, e)}`,
    );
  const cannot = undecidable(o, n);
  if (cannot !== undefined) {
    if (!same(o.value, n.value)) {
      effect(
        "undecided",
        "schema-undecided",
        `was restructured, and the diff cannot decide whether it accepts the same values (${cannot})`,
      );
    }
    return;
  }
  if (o.value === undefined || n.value === undefined) {
    if (o.value === undefined) effect("narrower", "schema-added", "added where any value was allowed");
    else effect("wider", "schema-removed", "removed, so any value is allowed");
    return;
  }
  if (typeof o.value === "boolean" || typeof n.value === "boolean") {
    const wider = n.value === true || o.value === false;
    if (!same(o.value, n.value)) {
      effect(
        wider ? "wider" : "narrower",
        "schema-boolean",
        `changed from ${show(o.value)} to ${show(n.value)}`,
      );
    }
    return;
  }
  if (!isObject(o.value) || !isObject(n.value)) {
    if (!same(o.value, n.value))
      effect("different", "schema-changed", `changed from ${show(o.value)} to ${show(n.value)}`);
    return;
  }
  if (oneGainedAlternatives(c, o, n, direction)) return;
  for (const [keys, rule] of SCHEMA_RULES) {
    if (
      keys.some(
        (key) =>
          (o.value as object)[key as never] !== undefined || (n.value as object)[key as never] !== undefined,
      )
    ) {
      rule(c, o, n, direction);
    }
  }
  compareUnknownKeywords(c, o, n);
}

/**
 * What no rule handles in a schema: annotations and identifiers, and keywords of neither JSON
 * Schema 2020-12 nor OpenAPI (to a validator, annotations too): informational, each said why.
 */
function compareUnknownKeywords(c: Comparison, o: At, n: At): void {
  const keys = new Set([...Object.keys(o.value as object), ...Object.keys(n.value as object)]);
  for (const key of keys) {
    if (HANDLED.has(key)) continue;
    if (c.meaningfulExtensions.has(key)) {
      const { cls, why } = unknownKey(key, c.meaningfulExtensions);
      compareStructurally(c, child(o, key), child(n, key), cls, why);
      continue;
    }
    const why = ANNOTATION_KEYS.has(key)
      ? "documentation only"
      : IDENTIFIERS.includes(key)
        ? "it names or identifies the schema; the diff follows the document's references itself"
        : unknownSchemaKeyword(key);
    compareStructurally(c, child(o, key), child(n, key), "informational", why);
  }
}

/** Reports one keyword's move at the keyword's own pointer. */
function moved(
  c: Comparison,
  o: At,
  n: At,
  direction: Direction,
  key: string,
  e: Effect,
  what: string,
): void {
  c.reportEffect(
    child(o, key),
    child(n, key),
    direction,
    e,
    `${key}-${e}`,
    `${c.words[direction]} ${what}: ${consequence(direction, e)}`,
  );
}

const typeRule: Rule = (c, o, n, d) => {
  const typesOf = (at: At) => {
    const type = (at.value as Record<string, unknown>).type;
    return type === undefined ? undefined : new Set<string>(Array.isArray(type) ? type : [type as string]);
  };
  const before = typesOf(o);
  const after = typesOf(n);
  const fmt = (s: Set<string> | undefined) => (s ? [...s].join(" | ") : "any type");
  if (before && after && same([...before].sort(), [...after].sort())) return;
  const covers = (set: Set<string>, t: string) => set.has(t) || (t === "integer" && set.has("number"));
  // No `type` allows every type.
  const wider = !after || (before !== undefined && [...before].every((t) => covers(after, t)));
  const narrower = !before || (after !== undefined && [...after].every((t) => covers(before, t)));
  const e: Effect = wider && !narrower ? "wider" : narrower && !wider ? "narrower" : "different";
  moved(c, o, n, d, "type", e, `type changed from ${fmt(before)} to ${fmt(after)}`);
};

/** enum and const: absent allows every value. */
const valuesRule: Rule = (c, o, n, d) => {
  const valuesOf = (at: At) => {
    const s = at.value as Record<string, unknown>;
    if (s.const !== undefined) return [s.const];
    return Array.isArray(s.enum) ? s.enum : undefined;
  };
  const before = valuesOf(o);
  const after = valuesOf(n);
  const os = o.value as Record<string, unknown>;
  const ns = n.value as Record<string, unknown>;
  const key = ns.const !== undefined || os.const !== undefined ? "const" : "enum";
  if (os.const !== undefined && ns.const !== undefined && !same(os.const, ns.const)) {
    return moved(
      c,
      o,
      n,
      d,
      "const",
      "different",
      `const changed from ${show(os.const)} to ${show(ns.const)}`,
    );
  }
  if (before && after) {
    const has = (list: unknown[], v: unknown) => list.some((x) => same(x, v));
    const lost = before.filter((v) => !has(after, v));
    const gained = after.filter((v) => !has(before, v));
    const list = (vs: unknown[]) => vs.map((v) => show(v)).join(", ");
    if (lost.length > 0) moved(c, o, n, d, key, "narrower", `${key} no longer allows ${list(lost)}`);
    if (gained.length > 0) moved(c, o, n, d, key, "wider", `${key} now also allows ${list(gained)}`);
    if (
      lost.length === 0 &&
      gained.length === 0 &&
      os.enum !== undefined &&
      ns.enum !== undefined &&
      !same(os.enum, ns.enum)
    ) {
      c.report(child(o, "enum"), child(n, "enum"), {
        kind: "enum-reordered",
        class: "informational",
        message: "enum values reordered",
      });
    }
    return;
  }
  if (after)
    moved(c, o, n, d, key, "narrower", `${key} ${show(after.length === 1 ? after[0] : after)} added`);
  else if (before)
    moved(c, o, n, d, key, "wider", `${key} ${show(before.length === 1 ? before[0] : before)} removed`);
};

/** format, pattern and x-wire-pattern: added narrows, removed widens, changed is undecidable. */
const textRule =
  (key: string): Rule =>
  (c, o, n, d) => {
    const before = (o.value as Record<string, unknown>)[key];
    const after = (n.value as Record<string, unknown>)[key];
    if (same(before, after)) return;
    if (before === undefined) return moved(c, o, n, d, key, "narrower", `${key} ${show(after)} added`);
    if (after === undefined) return moved(c, o, n, d, key, "wider", `${key} ${show(before)} removed`);
    const e: Effect =
      key === "format" && FORMAT_WIDENINGS[before as string] === after
        ? "wider"
        : key === "format" && FORMAT_WIDENINGS[after as string] === before
          ? "narrower"
          : "different";
    moved(c, o, n, d, key, e, `${key} changed from ${show(before)} to ${show(after)}`);
  };

const boundRule =
  (key: string, lower: boolean): Rule =>
  (c, o, n, d) => {
    const before = (o.value as Record<string, unknown>)[key];
    const after = (n.value as Record<string, unknown>)[key];
    if (same(before, after)) return;
    if (typeof before !== "number" || typeof after !== "number") {
      if (before === undefined) return moved(c, o, n, d, key, "narrower", `${key} ${show(after)} added`);
      if (after === undefined) return moved(c, o, n, d, key, "wider", `${key} ${show(before)} removed`);
      return moved(c, o, n, d, key, "different", `${key} changed from ${show(before)} to ${show(after)}`);
    }
    const narrower = lower ? after > before : after < before;
    moved(c, o, n, d, key, narrower ? "narrower" : "wider", `${key} changed from ${before} to ${after}`);
  };

const multipleOfRule: Rule = (c, o, n, d) => {
  const before = (o.value as Record<string, unknown>).multipleOf as number | undefined;
  const after = (n.value as Record<string, unknown>).multipleOf as number | undefined;
  if (before === after) return;
  const divides = (a: number, b: number) => Number.isInteger(b / a);
  const e: Effect =
    before === undefined
      ? "narrower"
      : after === undefined
        ? "wider"
        : divides(before, after)
          ? "narrower"
          : divides(after, before)
            ? "wider"
            : "different";
  moved(c, o, n, d, "multipleOf", e, `multipleOf changed from ${show(before)} to ${show(after)}`);
};

const uniqueItemsRule: Rule = (c, o, n, d) => {
  const before = (o.value as Record<string, unknown>).uniqueItems === true;
  const after = (n.value as Record<string, unknown>).uniqueItems === true;
  if (before !== after)
    moved(
      c,
      o,
      n,
      d,
      "uniqueItems",
      after ? "narrower" : "wider",
      `uniqueItems ${after ? "added" : "removed"}`,
    );
};

const requiredRule: Rule = (c, o, n, d) => {
  const list = (at: At) => {
    const r = (at.value as Record<string, unknown>).required;
    return Array.isArray(r) ? (r as string[]) : [];
  };
  const before = list(o);
  const after = list(n);
  for (const name of after.filter((p) => !before.includes(p))) {
    const what =
      d === "request" ? "clients that leave it out are refused" : "implementations must always send it";
    c.reportEffect(
      child(o, "required"),
      child(n, "required"),
      d,
      "narrower",
      "property-became-required",
      `${c.words[d]} property "${name}" is now required: ${what}`,
    );
  }
  for (const name of before.filter((p) => !after.includes(p))) {
    const what = d === "request" ? "implementations must accept it missing" : "clients may find it missing";
    c.reportEffect(
      child(o, "required"),
      child(n, "required"),
      d,
      "wider",
      "property-became-optional",
      `${c.words[d]} property "${name}" is no longer required: ${what}`,
    );
  }
};

const propertiesRule: Rule = (c, o, n, d) => {
  const props = (at: At) => child(at, "properties");
  const op = props(o);
  const np = props(n);
  const names = new Set([
    ...Object.keys(isObject(op.value) ? op.value : {}),
    ...Object.keys(isObject(np.value) ? np.value : {}),
  ]);
  for (const name of names) {
    const before = child(op, name);
    const after = child(np, name);
    if (before.value === undefined) {
      c.report(before, after, {
        kind: "property-added",
        class: "compatible",
        breaksImplementations: d === "request",
        message:
          d === "request"
            ? `${c.words[d]} property "${name}" added: implementations must accept it`
            : `${c.words[d]} property "${name}" added: clients ignore what they do not know`,
      });
    } else if (after.value === undefined) {
      c.report(before, after, {
        kind: "property-removed",
        class: "breaking",
        breaksImplementations: d === "request",
        message:
          d === "request"
            ? `${c.words[d]} property "${name}" removed: clients that send it are refused or misread`
            : `${c.words[d]} property "${name}" removed: clients that read it find nothing`,
      });
    } else compareSchema(c, before, after, d);
  }
};

/** additionalProperties and unevaluatedProperties: absent or true is open, false closed, a schema between. */
const openRule =
  (key: string): Rule =>
  (c, o, n, d) => {
    const before = child(o, key);
    const after = child(n, key);
    if (same(before.value, after.value)) return;
    const open = (v: unknown) => v === undefined || v === true;
    if (isObject(before.value) && isObject(after.value)) return compareSchema(c, before, after, d);
    const e: Effect = open(after.value)
      ? "wider"
      : open(before.value)
        ? "narrower"
        : after.value === false
          ? "narrower"
          : "wider";
    moved(c, o, n, d, key, e, `${key} changed from ${show(before.value)} to ${show(after.value)}`);
  };

const subschemaRule =
  (key: string): Rule =>
  (c, o, n, d) => {
    const before = child(o, key);
    const after = child(n, key);
    if (before.value === undefined || after.value === undefined) {
      return compareSchema(c, before, after, d);
    }
    compareSchema(c, before, after, d);
  };

const prefixItemsRule: Rule = (c, o, n, d) => {
  const before = child(o, "prefixItems");
  const after = child(n, "prefixItems");
  const bl = Array.isArray(before.value) ? before.value.length : 0;
  const al = Array.isArray(after.value) ? after.value.length : 0;
  for (let i = 0; i < Math.min(bl, al); i++) compareSchema(c, child(before, i), child(after, i), d);
  if (bl !== al) {
    moved(
      c,
      o,
      n,
      d,
      "prefixItems",
      "different",
      `prefixItems now has ${al} positions instead of ${bl}, so positions mean other things`,
    );
  }
};

/**
 * oneOf and anyOf: an alternative the other side has too (the same values accepted, wherever it is
 * written) is paired with it; the others are compared in their order; more alternatives widen.
 * allOf reaches here only where neither side could be merged and both have as many parts: compared
 * part by part.
 */
const combinatorRule =
  (key: "oneOf" | "anyOf" | "allOf"): Rule =>
  (c, o, n, d) => {
    const before = child(o, key);
    const after = child(n, key);
    const indices = (at: At) => (Array.isArray(at.value) ? at.value.map((_, i) => i) : []);
    let olds = indices(before);
    let news = indices(after);
    if (key !== "allOf") {
      const accepted = (at: At, side: "old" | "new") => canonical(normalise(c, at, side).value);
      const newShapes = news.map((i) => accepted(child(after, i), "new"));
      const paired = new Set<number>();
      for (const i of olds) {
        const shape = accepted(child(before, i), "old");
        const match = news.find((j, k) => !paired.has(j) && newShapes[k] === shape);
        if (match === undefined) continue;
        paired.add(match);
        compareSchema(c, child(before, i), child(after, match), d);
        olds = olds.filter((x) => x !== i);
      }
      news = news.filter((j) => !paired.has(j));
    }
    for (let k = 0; k < Math.min(olds.length, news.length); k++) {
      compareSchema(c, child(before, olds[k]!), child(after, news[k]!), d);
    }
    if (olds.length === news.length) return;
    const bl = indices(before).length;
    const al = indices(after).length;
    const grew = news.length > olds.length;
    const e: Effect = key === "allOf" ? (grew ? "narrower" : "wider") : grew ? "wider" : "narrower";
    moved(c, o, n, d, key, e, `${key} now has ${al} subschemas instead of ${bl}`);
  };

/**
 * A schema that became one of the alternatives of an anyOf or oneOf (or the reverse): the other
 * alternatives widen (or narrow) what is accepted, and nothing else changed. False when the lone
 * schema matches no alternative; the keyword rules compare them then.
 */
function oneGainedAlternatives(c: Comparison, o: At, n: At, direction: Direction): boolean {
  const listed = (at: At) =>
    (["anyOf", "oneOf"] as const).find((key) => Array.isArray((at.value as Record<string, unknown>)[key]));
  const oKey = listed(o);
  const nKey = listed(n);
  if ((oKey === undefined) === (nKey === undefined)) return false;
  const [lone, list, key, side] =
    oKey === undefined ? [o, n, nKey!, "new" as const] : [n, o, oKey, "old" as const];
  const alternatives = child(list, key);
  const count = (alternatives.value as unknown[]).length;
  const { [key]: _, ...rest } = list.value as Record<string, unknown>;
  const loneShape = canonical(lone.value);
  const match = (alternatives.value as unknown[]).findIndex(
    (_, i) => canonical(mergedWith(rest, normalise(c, child(alternatives, i), side).value)) === loneShape,
  );
  if (match < 0) return false;
  const grew = side === "new";
  moved(
    c,
    o,
    n,
    direction,
    key,
    grew ? "wider" : "narrower",
    `${key} now has ${grew ? count : 1} alternatives instead of ${grew ? 1 : count}`,
  );
  return true;
}

/** An alternative with the keywords written beside its anyOf or oneOf, as a lone schema would hold them. */
function mergedWith(rest: Record<string, unknown>, alternative: unknown): unknown {
  return isObject(alternative) ? { ...rest, ...alternative } : alternative;
}

const defaultRule: Rule = (c, o, n, d) => {
  const before = child(o, "default");
  const after = child(n, "default");
  if (same(before.value, after.value)) return;
  const changed = before.value !== undefined && after.value !== undefined;
  c.report(before, after, {
    kind: "default-changed",
    class: changed && d === "request" ? "breaking" : "informational",
    breaksImplementations: changed && d === "request",
    message:
      changed && d === "request"
        ? `default changed from ${show(before.value)} to ${show(after.value)}: clients that leave it out get another behaviour`
        : `default ${after.value === undefined ? `${show(before.value)} removed` : `${show(after.value)} ${changed ? "set" : "added"}`}`,
  });
};

const deprecatedRule: Rule = (c, o, n) => {
  const before = child(o, "deprecated");
  const after = child(n, "deprecated");
  if (same(before.value, after.value)) return;
  c.report(before, after, {
    kind: "deprecated",
    class: "informational",
    message: after.value === true ? "marked deprecated" : "no longer deprecated",
  });
};

const SCHEMA_RULES: [string[], Rule][] = [
  [["type"], typeRule],
  [["enum", "const"], valuesRule],
  [["format"], textRule("format")],
  [["pattern"], textRule("pattern")],
  ...[...SCHEMA_EXTENSIONS.keys()].map((key): [string[], Rule] => [[key], textRule(key)]),
  ...LOWER_BOUNDS.map((k): [string[], Rule] => [[k], boundRule(k, true)]),
  ...UPPER_BOUNDS.map((k): [string[], Rule] => [[k], boundRule(k, false)]),
  [["multipleOf"], multipleOfRule],
  [["uniqueItems"], uniqueItemsRule],
  [["required"], requiredRule],
  [["properties"], propertiesRule],
  [["additionalProperties"], openRule("additionalProperties")],
  [["unevaluatedProperties"], openRule("unevaluatedProperties")],
  [["items"], subschemaRule("items")],
  [["contains"], subschemaRule("contains")],
  [["propertyNames"], subschemaRule("propertyNames")],
  [["prefixItems"], prefixItemsRule],
  [["oneOf"], combinatorRule("oneOf")],
  [["anyOf"], combinatorRule("anyOf")],
  [["allOf"], combinatorRule("allOf")],
  [["default"], defaultRule],
  [["deprecated"], deprecatedRule],
  [["not"], notRule],
  [["if", "then", "else"], conditionalRule(compareSchema)],
  [["dependentRequired"], dependentRequiredRule],
  [["dependentSchemas"], dependentSchemasRule(compareSchema)],
  [["patternProperties"], patternPropertiesRule(compareSchema)],
  [["unevaluatedItems"], openRule("unevaluatedItems")],
  [["contentMediaType"], contentRule("contentMediaType")],
  [["contentEncoding"], contentRule("contentEncoding")],
  [["contentSchema"], subschema(compareSchema, "contentSchema")],
  [["readOnly", "writeOnly"], visibilityRule],
  [["discriminator"], discriminatorRule],
  [["xml"], xmlRule],
  [["$dynamicRef"], dynamicRefRule],
];

/** Every keyword a rule above covers; $ref is followed before comparing, $defs through the $refs. */
const HANDLED: ReadonlySet<string> = new Set([...SCHEMA_RULES.flatMap(([keys]) => keys), "$ref", "$defs"]);

/**
 * How each schema keyword is judged: by a rule of its own, as documentation, or as an identifier.
 * test/keywords.test.ts holds every keyword of JSON Schema 2020-12 and OpenAPI 3.0 and 3.1 to it.
 */
export function schemaKeywordRule(key: string): "rule" | "documentation" | "identifier" | undefined {
  if (HANDLED.has(key)) return "rule";
  if (ANNOTATION_KEYS.has(key)) return "documentation";
  if (IDENTIFIERS.includes(key)) return "identifier";
  return undefined;
}

export { deprecatedRule as compareDeprecated };
