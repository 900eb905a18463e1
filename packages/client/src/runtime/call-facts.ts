// What a generated facts.gen.ts tells the runtime about each operation beyond its wire: how much
// it weighs, what it places, its decimal parameters, how it pages, how a lost answer is looked up,
// and the error codes the spec states; and the API's clock.

import type { WeightRule } from "@marketapi/pacer";

/** How an operation pages: its cursor (x-cursor-paging), its time window (x-time-window), its page size (x-limit). */
export interface PagingFact {
  readonly cursor?: { readonly parameter: string; readonly field: string; readonly inclusive: boolean };
  readonly window?: {
    readonly start: string;
    readonly end: string;
    readonly field: string;
    readonly maxSpanMs?: number;
  };
  readonly limit?: { readonly parameter: string; readonly maximum: number };
}

/** How a request whose answer was lost is looked up (x-outcome-lookup). */
export interface LookupFact {
  readonly operation: string;
  /** The request's parameter that names its result; the client sets one when the caller did not. */
  readonly key: string;
  /** Lookup parameter → the request's parameter whose value it takes. */
  readonly parameters: Readonly<Record<string, string>>;
  /** The lookup's code for "no such result" (its x-unknown-reference order code). */
  readonly absentCode: number;
}

export interface OperationFact {
  /** Its request weight (x-weight; 1 when absent): `requestWeight` of `@marketapi/pacer` reads it. */
  readonly weight?: number | WeightRule;
  /** Orders it places, counted against the ORDERS limits. */
  readonly orders?: number;
  /** Decimal parameters: name → the regular expression their text must match. */
  readonly decimals?: Readonly<Record<string, string>>;
  readonly paging?: PagingFact;
  readonly lookup?: LookupFact;
  /** The error codes the spec states for it. */
  readonly codes?: readonly number[];
}

/** A generated `operationFacts`. */
export type OperationFacts = Readonly<Record<string, OperationFact>>;

/** A generated `apiFacts`. */
export interface ApiFacts {
  /** The operation whose answer holds the server's time, and its field (x-server-time). */
  readonly clock: { readonly operation: string; readonly field: string } | null;
  /** The receive window of a signed request that sends none (x-signing). */
  readonly recvWindowDefault: number | null;
  /** The code of a timestamp outside the receive window (x-signing). */
  readonly invalidTimestampCode: number | null;
}

/** The value at a JSON Pointer inside an answer ("" is the answer itself). */
export function valueAt(value: unknown, pointer: string): unknown {
  if (pointer === "") return value;
  let current = value;
  for (const raw of pointer.slice(1).split("/")) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return current;
}
