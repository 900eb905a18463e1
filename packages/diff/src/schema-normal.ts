// A schema reduced to the keywords that say what it accepts, before it is compared: its `$ref`
// followed (the keywords written beside it apply too), and every `allOf` part, and the one
// alternative of a one-item `anyOf` or `oneOf`, merged into one schema where the merge is exact.
// So an `allOf` split or merge, or a `$ref` extracted or inlined, compares as the same schema when
// it accepts the same instances. Where a merge would change what is accepted (two parts with
// different patterns, `additionalProperties` in one part and `properties` in another), the schema
// stays as written and says why: the comparison then reports that it cannot decide.
import {
  type At,
  type Comparison,
  child,
  IDENTITY,
  identityOf,
  isObject,
  ORIGIN,
  same,
} from "./comparison.js";
import { SCHEMA_EXTENSIONS } from "./extensions/index.js";
import { ANNOTATION_KEYS } from "./structural.js";

/** A schema as compared: built when parts were merged; `unmerged` says why some could not be. */
export interface NormalAt extends At {
  unmerged?: string;
}

type Side = "old" | "new";
/** A part and how many `$ref`s and `allOf`s deep it was written: the shallowest one's annotations win. */
type Part = At & { depth: number };
type Json = Record<string, unknown>;

/** Keywords that describe without constraining: the first part that has one gives it. */
const FIRST_WINS: ReadonlySet<string> = new Set([
  ...ANNOTATION_KEYS,
  "deprecated",
  "readOnly",
  "writeOnly",
  "$id",
  "$schema",
  "$anchor",
  "$dynamicAnchor",
  "$defs",
  "discriminator",
  "xml",
  "default",
]);
/** Vendor keywords that only describe: the first part's wins. Those with a diff rule are constraints. */
const describes = (key: string) =>
  FIRST_WINS.has(key) || (key.startsWith("x-") && !SCHEMA_EXTENSIONS.has(key));
const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];
/** Keywords whose subschemas apply to the same instance in every part: their conjunction is an allOf. */
const CONJOINED = ["items", "propertyNames", "additionalProperties", "unevaluatedItems"];
const MAX_PARTS = 256;

/** Normal forms already built, by comparison, side and node: a shared schema is met again and again. */
const built = new WeakMap<Comparison, Map<string, NormalAt>>();

export function normalise(c: Comparison, raw: At, side: Side): NormalAt {
  if (raw.value === undefined || typeof raw.value !== "object" || raw.value === null) return raw;
  const cache = built.get(c) ?? new Map<string, NormalAt>();
  built.set(c, cache);
  const key = `${side}|${identityOf(raw)}`;
  const normal = cache.get(key) ?? normalForm(c, raw, side);
  cache.set(key, normal);
  return normal;
}

function normalForm(c: Comparison, raw: At, side: Side): NormalAt {
  const parts: Part[] = [];
  const reason = collectParts(c, raw, side, parts, new Set(), 0);
  if (reason !== undefined) return { ...c.deref(raw, side), unmerged: reason };
  if (parts.length === 0) return c.deref(raw, side);
  if (parts.length === 1) return parts[0]!;
  const merged = mergeParts(parts);
  if (typeof merged === "string") return { ...c.deref(raw, side), unmerged: merged };
  return { value: merged, pointer: raw.pointer };
}

/**
 * The parts whose conjunction the schema at `at` is, in the order their annotations win: the
 * keywords beside a `$ref`, then its target; a node's own keywords, then its `allOf` items. A
 * boolean `true` part adds nothing; `false` stands alone. Returns why they cannot be merged, if so.
 */
function collectParts(
  c: Comparison,
  at: At,
  side: Side,
  parts: Part[],
  path: Set<string>,
  depth: number,
): string | undefined {
  if (at.value === undefined || at.value === true) return undefined;
  if (!isObject(at.value)) {
    parts.push({ ...at, depth });
    return undefined;
  }
  const identity = identityOf(at);
  if (path.has(identity) || depth > 64) return `allOf or $ref leads back to ${at.pointer}`;
  if (parts.length >= MAX_PARTS) return `more than ${MAX_PARTS} parts to merge`;
  const inner = new Set(path).add(identity);
  const { $ref, allOf, ...own } = at.value;
  const single = singleAlternative(own);
  if (typeof $ref === "string") {
    const siblings = withoutKeys(own, []);
    if (Object.keys(siblings).length > 0) parts.push({ value: siblings, pointer: at.pointer, depth });
    const why = collectParts(c, c.follow($ref, side), side, parts, inner, depth + 1);
    if (why !== undefined || !Array.isArray(allOf)) return why;
  } else if (Array.isArray(allOf) || single) {
    const rest = single ? withoutKeys(own, [single]) : own;
    if (Object.keys(rest).length > 0) parts.push({ value: rest, pointer: at.pointer, depth });
    if (single) {
      const why = collectParts(c, child(at, single, 0), side, parts, inner, depth + 1);
      if (why !== undefined) return why;
    }
  } else {
    parts.push({ ...at, depth });
    return undefined;
  }
  if (!Array.isArray(allOf)) return undefined;
  for (let index = 0; index < allOf.length; index++) {
    const why = collectParts(c, child(at, "allOf", index), side, parts, inner, depth + 1);
    if (why !== undefined) return why;
  }
  return undefined;
}

/** `anyOf` or `oneOf` of exactly one schema (and not both): that schema is the node's too. */
function singleAlternative(node: Json): "anyOf" | "oneOf" | undefined {
  const one = (key: string) => Array.isArray(node[key]) && (node[key] as unknown[]).length === 1;
  if (one("anyOf") && node.oneOf === undefined) return "anyOf";
  if (one("oneOf") && node.anyOf === undefined) return "oneOf";
  return undefined;
}

function withoutKeys(node: Json, keys: string[]): Json {
  return Object.fromEntries(Object.entries(node).filter(([key]) => !keys.includes(key)));
}

/** The one schema that accepts what every part accepts, or why there is none written so. */
function mergeParts(parts: Part[]): (Json & { [ORIGIN]: Record<string, string> }) | boolean | string {
  if (parts.some((p) => p.value === false)) return false;
  const objects = parts.filter((p) => isObject(p.value)) as (Part & { value: Json })[];
  if (objects.length !== parts.length) return "an allOf part is not a schema";
  const closed = objects.find(
    (p) => p.value.additionalProperties !== undefined && p.value.additionalProperties !== true,
  );
  if (
    closed &&
    objects.some(
      (p) => p !== closed && (p.value.properties !== undefined || p.value.patternProperties !== undefined),
    )
  ) {
    return `additionalProperties in ${closed.pointer} applies to its own properties only, and another part declares more`;
  }
  const out: Json = {};
  const origin: Record<string, string> = {};
  const keys = [...new Set(objects.flatMap((p) => Object.keys(p.value)))];
  for (const key of keys) {
    const holders = objects.filter((p) => p.value[key] !== undefined);
    const shallowest = Math.min(...holders.map((p) => p.depth));
    const first = describes(key) ? holders.find((p) => p.depth === shallowest)! : holders[0]!;
    origin[key] = `${first.pointer}/${escapePointer(key)}`;
    const values = holders.map((p) => p.value[key]);
    if (holders.length === 1 || values.every((v) => same(v, values[0])) || describes(key)) {
      out[key] = first.value[key];
      continue;
    }
    const merged = mergeKeyword(key, holders);
    if (typeof merged === "string") return merged;
    out[key] = merged.value;
  }
  if (out.const !== undefined && out.enum !== undefined) {
    const allowed = (out.enum as unknown[]).filter((v) => same(v, out.const));
    if (allowed.length === 0) return "const and enum of two parts allow no common value";
    delete out.enum;
  }
  Object.defineProperty(out, ORIGIN, { value: origin, enumerable: false });
  Object.defineProperty(out, IDENTITY, { value: objects.map((p) => p.pointer).join("&"), enumerable: false });
  return out as Json & { [ORIGIN]: Record<string, string> };
}

/** Two or more parts set `key` differently: the value that asks what all of them ask. */
function mergeKeyword(key: string, holders: { value: Json; pointer: string }[]): { value: unknown } | string {
  const values = holders.map((p) => p.value[key]);
  if (LOWER.includes(key) && values.every((v) => typeof v === "number"))
    return { value: Math.max(...(values as number[])) };
  if (UPPER.includes(key) && values.every((v) => typeof v === "number"))
    return { value: Math.min(...(values as number[])) };
  switch (key) {
    case "type": {
      const sets = values.map((v) => new Set<string>(Array.isArray(v) ? (v as string[]) : [v as string]));
      const common = [...sets[0]!].flatMap((t) => {
        if (sets.every((s) => s.has(t))) return [t];
        if (t === "number" && sets.every((s) => s.has("number") || s.has("integer"))) return ["integer"];
        return [];
      });
      const types = [...new Set(common)];
      if (types.length === 0)
        return `allOf parts allow no common type (${values.map((v) => JSON.stringify(v)).join(" and ")})`;
      return { value: types.length === 1 ? types[0] : types };
    }
    case "enum": {
      const lists = values as unknown[][];
      if (!lists.every(Array.isArray)) return "an enum that is not a list";
      return { value: lists[0]!.filter((v) => lists.every((list) => list.some((w) => same(v, w)))) };
    }
    case "required":
      return { value: [...new Set((values as unknown[][]).flat())] };
    case "uniqueItems":
      return { value: values.some((v) => v === true) };
    case "properties":
    case "patternProperties":
    case "dependentSchemas":
      return { value: mergedMap(key, holders) };
    case "dependentRequired": {
      const out: Record<string, string[]> = {};
      for (const map of values as Record<string, string[]>[]) {
        for (const [name, list] of Object.entries(map))
          out[name] = [...new Set([...(out[name] ?? []), ...list])];
      }
      return { value: out };
    }
    default:
      if (CONJOINED.includes(key))
        return {
          value: conjunction(
            holders.map((p) => ({ value: p.value[key], pointer: `${p.pointer}/${escapePointer(key)}` })),
          ),
        };
      return `two allOf parts set "${key}" differently (${holders.map((p) => p.pointer).join(", ")})`;
  }
}

/** A map of subschemas by name (properties, ...) from every part; a name in several is their allOf. */
function mergedMap(key: string, holders: { value: Json; pointer: string }[]): Json {
  const out: Json = {};
  const origin: Record<string, string> = {};
  const names = [...new Set(holders.flatMap((p) => Object.keys(p.value[key] as Json)))];
  for (const name of names) {
    const schemas = holders
      .filter((p) => (p.value[key] as Json)[name] !== undefined)
      .map((p) => ({
        value: (p.value[key] as Json)[name],
        pointer: `${p.pointer}/${escapePointer(key)}/${escapePointer(name)}`,
      }));
    origin[name] = schemas[0]!.pointer;
    out[name] = schemas.length === 1 ? schemas[0]!.value : conjunction(schemas);
  }
  Object.defineProperty(out, ORIGIN, { value: origin, enumerable: false });
  return out;
}

/** `{ allOf: [...] }` of schemas from several places, which the comparison merges in turn. */
function conjunction(schemas: At[]): Json {
  if (schemas.every((s) => same(s.value, schemas[0]!.value))) return schemas[0]!.value as Json;
  const list = schemas.map((s) => s.value);
  Object.defineProperty(list, ORIGIN, {
    value: Object.fromEntries(schemas.map((s, i) => [String(i), s.pointer])),
    enumerable: false,
  });
  const node: Json = { allOf: list };
  Object.defineProperty(node, IDENTITY, {
    value: schemas.map((s) => s.pointer).join("&"),
    enumerable: false,
  });
  return node;
}

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");
