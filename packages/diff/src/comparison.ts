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

export const child = (at: At, ...segments: (string | number)[]): At => {
  let { value, pointer } = at;
  for (const segment of segments) {
    value =
      value === undefined || value === null || typeof value !== "object"
        ? undefined
        : (value as never)[segment];
    pointer = `${pointer}/${escapeSegment(String(segment))}`;
  }
  return { value, pointer };
};

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

/** JSON with sorted keys: equal for equal data, whatever the key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

export const show = describeValue;

export interface Report {
  kind: string;
  message: string;
  class: ChangeClass;
  breaksImplementations?: boolean;
}

export class Comparison {
  readonly changes: Change[] = [];
  /** Pairs of nodes (old pointer | new pointer | direction) already compared. */
  private readonly compared = new Set<string>();
  /** Component pointers some operation reached; the others are compared as unused at the end. */
  readonly reached = { old: new Set<string>(), new: new Set<string>() };
  operation: string | undefined;

  constructor(
    readonly oldDocument: OpenApiDocument,
    readonly newDocument: OpenApiDocument,
  ) {}

  /** Records a change at the new node, or at the old one when the new is absent. */
  report(o: At, n: At, report: Report): void {
    const inNew = n.value !== undefined || o.value === undefined;
    this.changes.push({
      class: report.class,
      kind: report.kind,
      pointer: inNew ? n.pointer : o.pointer,
      in: inNew ? "new" : "old",
      ...(this.operation ? { operation: this.operation } : {}),
      message: report.message,
      breaksImplementations: report.breaksImplementations ?? false,
    });
  }

  /** Reports a constraint that moved, classed by the direction table. */
  reportEffect(o: At, n: At, direction: Direction, effect: Effect, kind: string, message: string): void {
    this.report(o, n, { kind, message, ...classify(direction, effect) });
  }

  /** Follows $refs to the node they name; the pointer becomes the target's. Records what was reached. */
  deref(at: At, side: "old" | "new"): At {
    const document = side === "old" ? this.oldDocument : this.newDocument;
    let current = at;
    for (
      let hops = 0;
      hops < 64 && isObject(current.value) && typeof current.value.$ref === "string";
      hops++
    ) {
      const ref = current.value.$ref;
      const pointer = ref.slice(1);
      this.reached[side].add(pointer);
      current = { value: valueAt(document, pointer), pointer };
    }
    return current;
  }

  /** True the first time a pair is seen: callers compare it then, and skip it after (cycles too). */
  firstVisit(o: At, n: At, direction: string): boolean {
    const key = `${o.pointer}|${n.pointer}|${direction}`;
    if (this.compared.has(key)) return false;
    this.compared.add(key);
    return true;
  }

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
