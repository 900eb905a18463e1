/**
 * Client order ids for the exploration: unique to the run, of every length the spec's pattern
 * allows (up to its maximum), and written with every character it allows, including those that
 * percent-encoding changes on the wire (":" and "/" in the live API's pattern), so that a server
 * that signs, matches or echoes ids after decoding them is seen to.
 */
import type { ContractOperation } from "../core/operations.js";
import { lengthBounds } from "../kit/values.js";

export interface ClientIdSpace {
  max: number;
  /** Characters the pattern accepts, those that encoding changes first. */
  chars: string[];
  accepts(text: string): boolean;
}

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));

/** The id space of new_order's newClientOrderId, or undefined when the spec bounds it by no pattern. */
export function clientIdSpace(newOrder: ContractOperation): ClientIdSpace | undefined {
  const param = newOrder.parameters.find((p) => p.name === "newClientOrderId");
  const schema = param?.resolvedSchema;
  if (!schema) return undefined;
  const bounds = lengthBounds(schema);
  const pattern = schema.pattern ? new RegExp(schema.pattern, "u") : undefined;
  const accepts = (text: string) =>
    (!pattern || pattern.test(text)) && (bounds === undefined || text.length <= bounds.max);
  const chars = PRINTABLE.filter((c) => accepts(c.repeat(Math.max(1, bounds?.min ?? 1))));
  if (chars.length === 0) return undefined;
  const changed = chars.filter((c) => encodeURIComponent(c) !== c);
  return {
    max: bounds?.max ?? 36,
    chars: [...changed, ...chars.filter((c) => !changed.includes(c))],
    accepts,
  };
}

/**
 * The id for the `n`-th order of a run: a unique stem (letters and digits of the run and the
 * counter), then characters of the space chosen by `pick`, up to `length` (never below the stem).
 */
export function clientIdFor(space: ClientIdSpace, stem: string, length: number, pick: number): string {
  let id = stem;
  const target = Math.min(space.max, Math.max(stem.length, length));
  for (let i = 0; id.length < target; i += 1) id += space.chars[(pick + i * 7) % space.chars.length];
  return space.accepts(id) ? id : stem;
}
