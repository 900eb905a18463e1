// JSON Pointers (RFC 6901) have one implementation, in @marketapi/spec/model (which percent-decodes
// the segments of a "#/..." fragment); the loader's users get it from here with the rest.
import { pointerOf } from "@marketapi/spec/model";

export { pointerOf, segmentsOf, valueAt } from "@marketapi/spec/model";

/** One segment as a pointer writes it: `~` as `~0`, `/` as `~1`. */
export function escapeSegment(segment: string): string {
  return pointerOf(segment).slice(1);
}
