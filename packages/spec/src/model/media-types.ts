// Which media types a client of an operation uses: the request body's media type it sends, how it
// reads a success answer, and the Accept header it sends when a success answer comes in several.
// One rule for every tool that writes requests (the generated client, the docs' code samples), so
// that they send and read the same.
import type { Operation } from "./operations.js";

const BODY_PREFERENCE: ((type: string) => boolean)[] = [
  (type) => type === "application/json" || /\+json$|\/json$/.test(type),
  (type) => type === "application/x-www-form-urlencoded",
  (type) => type.startsWith("multipart/"),
  (type) => type.startsWith("text/"),
  () => true,
];

/** The request body's media type a client sends: the first JSON one, else form, multipart, text, anything. */
export function preferredMediaType(types: readonly string[]): string | undefined {
  for (const accepts of BODY_PREFERENCE) {
    const found = types.find((type) => accepts(type.split(";")[0]!.trim().toLowerCase()));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** How a success answer is read. */
export type ResponseAs = "json" | "text" | "blob" | "none";

function isSuccess(status: string): boolean {
  return /^2([0-9]{2}|XX)$/i.test(status);
}

/** How a client reads a success answer: JSON if any success declares JSON, else text, else bytes. */
export function responseAsOf(operation: Pick<Operation, "responses">): ResponseAs {
  const types = operation.responses
    .filter((r) => isSuccess(r.status))
    .flatMap((r) => r.contentTypes.map((t) => t.split(";")[0]!.trim().toLowerCase()));
  if (types.length === 0) return "none";
  if (types.some((t) => t === "*/*" || t === "application/json" || /\+json$|\/json$/.test(t))) return "json";
  if (types.every((t) => t.startsWith("text/"))) return "text";
  return "blob";
}

/** The Accept header, when the success answers declare several media types: the one read. */
export function acceptedMediaType(operation: Pick<Operation, "responses">): string | undefined {
  const types = [
    ...new Set(operation.responses.filter((r) => isSuccess(r.status)).flatMap((r) => r.contentTypes)),
  ];
  if (types.length < 2) return undefined;
  const read = responseAsOf(operation);
  return read === "json"
    ? types.find((t) => /^application\/json|\+json$|\/json$/i.test(t))
    : read === "text"
      ? types.find((t) => t.startsWith("text/"))
      : undefined;
}
