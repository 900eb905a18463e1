/** Encodes path segments as a JSON Pointer (RFC 6901): `~` as `~0`, `/` as `~1`. */
export function pointerOf(...segments: (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/**
 * Decodes a JSON Pointer (`/paths/~1a/get`) or a URI fragment holding one (`#/components/...`,
 * whose segments may also be percent-encoded, RFC 6901 section 6) into its segments.
 */
export function segmentsOf(pointer: string): string[] {
  const fragment = pointer.startsWith("#");
  const body = fragment ? pointer.slice(1) : pointer;
  if (body === "") return [];
  return body
    .slice(1)
    .split("/")
    .map((segment) => (fragment ? percentDecoded(segment) : segment))
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value a pointer names inside `root`, or undefined when it names nothing. */
export function valueAt(root: unknown, pointer: string): unknown {
  let current: unknown = root;
  for (const key of segmentsOf(pointer)) {
    if (typeof current !== "object" || current === null) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function percentDecoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
