// The state of one comparison: both documents, the changes found so far, $ref resolution, and the
// nodes already compared (shared components are compared, and reported, once).

import type { OpenApiDocument } from "@marketapi/spec-loader";
import { describeValue, escapeSegment, valueAt } from "@marketapi/spec-loader";
import type { Change, ChangeClass, Direction, Effect } from "./change.js";
import { classify } from "./change.js";

/** A node of one document and where it is. `value` undefined: absent there. */
export interface At {
  value: unknown;
  pointer: string;
}

/**
 * On a node that normalisation built (schema-normal.ts: an allOf merged into one schema), the
 * document pointers its keys came from: `child` reports a change where the reader wrote it.
 */
export const ORIGIN: unique symbol = Symbol("origin");
/** On a built node, what it was built from: two built nodes of one pointer are compared apart. */
export const IDENTITY: unique symbol = Symbol("identity");

type Built = { [ORIGIN]?: Record<string, string>; [IDENTITY]?: string };

export const child = (at: At, ...segments: (string | number)[]): At => {
  let { value, pointer } = at;
  for (const segment of segments) {
    const origin =
      value !== null && typeof value === "object" ? (value as Built)[ORIGIN]?.[String(segment)] : undefined;
    value =
      value === undefined || value === null || typeof value !== "object"
        ? undefined
        : (value as never)[segment];
    pointer = origin ?? `${pointer}/${escapeSegment(String(segment))}`;
  }
  return { value, pointer };
};

/** What a node is, for remembering comparisons: its pointer, or what a built node was built from. */
export const identityOf = (at: At): string =>
  (at.value !== null && typeof at.value === "object" ? (at.value as Built)[IDENTITY] : undefined) ??
  at.pointer;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

/** Canonical texts of the objects met so far: the comparison asks again at every level. */
const canonicalTexts = new WeakMap<object, string>();

/** JSON with sorted keys: equal for equal data, whatever the key order. */
export function canonical(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const known = canonicalTexts.get(value);
  if (known !== undefined) return known;
  const text = Array.isArray(value)
    ? `[${value.map((item) => (item === undefined ? "null" : canonical(item))).join(",")}]`
    : `{${Object.keys(value)
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
        .join(",")}}`;
  canonicalTexts.set(value, text);
  return text;
}

export const show = describeValue;

const codeUnitOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface Report {
  kind: string;
  message: string;
  class: ChangeClass;
  breaksImplementations?: boolean;
}

export class Comparison {
  readonly changes: Change[] = [];
  /** Every change by what it is (side, pointer, class, kind, message): one entry, many operations. */
  private readonly byIdentity = new Map<string, Change>();
  /**
   * Pairs of nodes (old | new | direction) compared, with the changes found under them: another
   * operation that reaches the same pair gets the same changes, named under it too.
   */
  private readonly compared = new Map<string, Set<Change> | "comparing">();
  /** The changes of the pairs being compared now, innermost last. */
  private readonly collecting: Set<Change>[] = [];
  /** Reports made so far, new or repeated: tells a rule whether it said anything. */
  reports = 0;
  /** Component pointers some operation reached; the others are compared as unused at the end. */
  readonly reached = { old: new Set<string>(), new: new Set<string>() };
  operation: string | undefined;
  /**
   * What a schema of each direction is called in messages. A webhook turns the roles round: the
   * API sends its request (the payload subscribers read) and reads the answer.
   */
  words: Record<Direction, string> = { request: "request", response: "response" };

  constructor(
    readonly oldDocument: OpenApiDocument,
    readonly newDocument: OpenApiDocument,
    /**
     * Extensions the reader declares meaningful (`--meaningful-extensions`) beyond those the diff
     * has rules for: a change to one counts as breaking, as any key no rule covers does.
     */
    readonly meaningfulExtensions: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * Records a change at the new node, or at the old one when the new is absent. The same change
   * reached from another operation (a shared component) is one change that names both.
   */
  report(o: At, n: At, report: Report): void {
    this.reports++;
    const inNew = n.value !== undefined || o.value === undefined;
    const pointer = inNew ? n.pointer : o.pointer;
    const key = JSON.stringify([inNew, pointer, report.class, report.kind, report.message]);
    let change = this.byIdentity.get(key);
    if (!change) {
      change = {
        class: report.class,
        kind: report.kind,
        pointer,
        in: inNew ? "new" : "old",
        message: report.message,
        breaksImplementations: report.breaksImplementations ?? false,
      };
      this.byIdentity.set(key, change);
      this.changes.push(change);
    }
    this.collect(change);
  }

  /** Names the current operation on a change, and keeps it with the pairs being compared. */
  private collect(change: Change): void {
    if (this.operation !== undefined) {
      const operations = change.operations ?? [];
      if (!operations.includes(this.operation)) {
        change.operations = [...operations, this.operation].sort(codeUnitOrder);
        change.operation = change.operations[0];
      }
    }
    for (const set of this.collecting) set.add(change);
  }

  /** Reports a constraint that moved, classed by the direction table. */
  reportEffect(o: At, n: At, direction: Direction, effect: Effect, kind: string, message: string): void {
    this.report(o, n, { kind, message, ...classify(direction, effect) });
  }

  /** Follows $refs to the node they name; the pointer becomes the target's. Records what was reached. */
  deref(at: At, side: "old" | "new"): At {
    let current = at;
    for (
      let hops = 0;
      hops < 64 && isObject(current.value) && typeof current.value.$ref === "string";
      hops++
    ) {
      current = this.follow(current.value.$ref, side);
    }
    return current;
  }

  /** The node a local `$ref` names (one hop), recorded as reached. */
  follow(ref: string, side: "old" | "new"): At {
    const document = side === "old" ? this.oldDocument : this.newDocument;
    const pointer = ref.slice(1);
    this.reached[side].add(pointer);
    return { value: valueAt(document, pointer), pointer };
  }

  /**
   * Compares a pair of nodes once (`body`), however many operations reach it: a later visit names
   * the current operation on the changes found the first time. A pair met again while it is being
   * compared (a recursive schema) is skipped; a pair whose comparison skipped an outer one is not
   * remembered, since its changes are not all its own, and is compared again when reached again.
   */
  once(o: At, n: At, direction: string, body: () => void): void {
    const key = `${identityOf(o)}|${identityOf(n)}|${direction}`;
    const known = this.compared.get(key);
    if (known === "comparing") {
      this.shallowestCut = Math.min(this.shallowestCut, this.comparing.indexOf(key));
      return;
    }
    if (known) {
      for (const change of known) this.collect(change);
      return;
    }
    const depth = this.comparing.length;
    this.compared.set(key, "comparing");
    this.comparing.push(key);
    const found = new Set<Change>();
    this.collecting.push(found);
    try {
      body();
    } finally {
      this.collecting.pop();
      this.comparing.pop();
      if (this.shallowestCut < depth) this.compared.delete(key);
      else this.compared.set(key, found);
      if (this.shallowestCut >= depth) this.shallowestCut = Number.POSITIVE_INFINITY;
    }
  }

  /** The keys of the pairs being compared now, outermost first. */
  private readonly comparing: string[] = [];
  /** The depth of the outermost pair a comparison under way met again (a cycle), if any. */
  private shallowestCut = Number.POSITIVE_INFINITY;

  /** Runs `body` with the operation label set, so its changes name the operation. */
  within<T>(operation: string | undefined, body: () => T): T {
    const outer = this.operation;
    this.operation = operation;
    try {
      return body();
    } finally {
      this.operation = outer;
    }
  }
}
