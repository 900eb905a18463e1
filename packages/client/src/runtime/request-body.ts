// A request body as its media type wants it: JSON text, a form (application/x-www-form-urlencoded),
// multipart form data, text, or bytes as given.
import { type ParameterWire, queryPart } from "./parameter-styles.js";
import { formatValue } from "./wire-encoding.js";

/** How one property of a form or multipart body travels (OpenAPI's encoding object). */
export interface PropertyEncoding {
  readonly style?: string;
  readonly explode?: boolean;
  readonly allowReserved?: boolean;
  readonly contentType?: string;
}

/** The request body an operation takes: a generated operation table's `body` entry. */
export interface BodyWire {
  /** The media type sent (the spec's first JSON, form, multipart, text or other one, in that order). */
  readonly mediaType: string;
  readonly required: boolean;
  readonly encoding?: Readonly<Record<string, PropertyEncoding>>;
}

export type BodyKind = "json" | "form" | "multipart" | "text" | "bytes";

/** What a media type is, for encoding. */
export function bodyKind(mediaType: string): BodyKind {
  const type = mediaType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json") || type.endsWith("/json")) return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  if (type.startsWith("multipart/")) return "multipart";
  if (type.startsWith("text/")) return "text";
  return "bytes";
}

export interface EncodedBody {
  /** What fetch sends. */
  body: BodyInit;
  /** The Content-Type header; undefined for multipart, whose boundary fetch writes. */
  contentType: string | undefined;
  /** The body's text when it is text (JSON, form, text): what a signature covers. */
  text: string | undefined;
}

/** Encodes `value` for the body's media type. */
export function encodeBody(wire: BodyWire, value: unknown): EncodedBody {
  switch (bodyKind(wire.mediaType)) {
    case "json": {
      const text = JSON.stringify(value);
      return { body: text, contentType: wire.mediaType, text };
    }
    case "form": {
      const text = formText(wire, value);
      return { body: text, contentType: wire.mediaType, text };
    }
    case "multipart":
      return { body: formData(wire, value), contentType: undefined, text: undefined };
    case "text": {
      const text = typeof value === "string" ? value : formatValue("body", value, false);
      return { body: text, contentType: wire.mediaType, text };
    }
    case "bytes":
      if (typeof value === "string") return { body: value, contentType: wire.mediaType, text: value };
      return { body: value as BodyInit, contentType: wire.mediaType, text: undefined };
  }
}

function entriesOf(value: unknown): [string, unknown][] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `a form body must be an object of fields, got ${Array.isArray(value) ? "an array" : typeof value}`,
    );
  }
  return Object.entries(value);
}

/** `a=1&b=2`: each property as a query parameter of its encoding's style (form, exploded, by default). */
function formText(wire: BodyWire, value: unknown): string {
  return entriesOf(value)
    .map(([name, v]) => {
      const encoding = wire.encoding?.[name];
      const json = encoding?.contentType !== undefined && /json/i.test(encoding.contentType);
      const part: ParameterWire = { name, in: "query", ...encoding, ...(json ? { json } : {}) };
      return queryPart(part, v);
    })
    .filter((part) => part !== "")
    .join("&");
}

/** Multipart fields: Blobs as files, objects as JSON parts, scalars as text; arrays repeat the field. */
function formData(wire: BodyWire, value: unknown): FormData {
  const data = new FormData();
  const append = (name: string, v: unknown) => {
    if (v === undefined || v === null) return;
    if (v instanceof Blob) data.append(name, v);
    else if (typeof v === "object" && !(v instanceof Date)) {
      const type = wire.encoding?.[name]?.contentType ?? "application/json";
      data.append(name, new Blob([JSON.stringify(v)], { type }));
    } else data.append(name, formatValue(name, v, false));
  };
  for (const [name, v] of entriesOf(value)) {
    if (Array.isArray(v)) for (const item of v) append(name, item);
    else append(name, v);
  }
  return data;
}
