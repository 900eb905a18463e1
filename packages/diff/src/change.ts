// What the diff reports, and the one table that turns "what got narrower or wider" into a class.

export type ChangeClass = "breaking" | "undecided" | "compatible" | "informational";

export interface Change {
  /**
   * breaking: a client built on the old document can fail; compatible: it cannot; informational:
   * nothing a program sees; undecided: the diff cannot tell whether the new schema accepts the same
   * values (a restructure it cannot reduce to keywords it compares), so a person decides.
   */
  class: ChangeClass;
  /** The rule that matched, e.g. "parameter-became-required"; "structural" for the generic fallback. */
  kind: string;
  /** JSON Pointer of the changed node: in the new document, or in the old one for something removed. */
  pointer: string;
  /** Which document `pointer` is in. */
  in: "old" | "new";
  /** The first of `operations`, when it concerns one. */
  operation?: string;
  /**
   * Every operation it concerns ("POST /api/v3/order (new_order)"), by label: a change to a
   * shared component names each operation that uses it. Absent for the document's own changes
   * (info, servers, a component no operation uses).
   */
  operations?: string[];
  /** One line: what changed and why it has this class. */
  message: string;
  /**
   * True when implementations of the API (the reference server, and others that the contract
   * tester checks) must change: they accept or answer something the new document no longer allows.
   */
  breaksImplementations: boolean;
}

/** The side of the HTTP exchange a schema or parameter describes. */
export type Direction = "request" | "response";

/**
 * How a constraint moved: `narrower` accepts fewer values, `wider` more, `different` some of each
 * (two patterns, say), `undecided` a restructure whose effect the diff cannot work out.
 */
export type Effect = "narrower" | "wider" | "different" | "undecided";

/**
 * The direction table (docs: "Which direction breaks whom"). A client sends requests and reads
 * responses; an implementation reads requests and sends responses. What the sender may put in
 * getting narrower breaks the sender; what the reader must handle getting wider breaks the reader.
 *
 * |           | narrower                                  | wider                                    | different |
 * | --------- | ----------------------------------------- | ---------------------------------------- | --------- |
 * | request   | breaks clients (their requests refused)   | breaks implementations (must accept more) | both      |
 * | response  | breaks implementations (must answer less) | breaks clients (unexpected values)        | both      |
 */
export function classify(
  direction: Direction,
  effect: Effect,
): Pick<Change, "class" | "breaksImplementations"> {
  if (effect === "different") return { class: "breaking", breaksImplementations: true };
  if (effect === "undecided") return { class: "undecided", breaksImplementations: false };
  const clientsBreak = direction === "request" ? effect === "narrower" : effect === "wider";
  return { class: clientsBreak ? "breaking" : "compatible", breaksImplementations: !clientsBreak };
}

/** Changes in the order a reader wants them: breaking first, then undecided, compatible, informational. */
export function sortChanges(changes: Change[]): Change[] {
  const rank: Record<ChangeClass, number> = { breaking: 0, undecided: 1, compatible: 2, informational: 3 };
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  // Changes to shared components (no operation) come after the operations' own.
  return [...changes].sort(
    (a, b) =>
      rank[a.class] - rank[b.class] ||
      order(a.operation ?? "\uffff", b.operation ?? "\uffff") ||
      order(a.pointer, b.pointer),
  );
}

export interface ChangeCounts {
  breaking: number;
  undecided: number;
  compatible: number;
  informational: number;
}

export function countChanges(changes: Change[]): ChangeCounts {
  const counts: ChangeCounts = { breaking: 0, undecided: 0, compatible: 0, informational: 0 };
  for (const change of changes) counts[change.class]++;
  return counts;
}
