// How a parameter's value is written in its place (OpenAPI 3.1 "style" and "explode"): path
// templates (simple, label, matrix), query strings (form, spaceDelimited, pipeDelimited,
// deepObject), headers (simple) and the Cookie header (form). Scalars are written as the API's
// wire rules say (wire-encoding.ts: plain decimals, RFC 3339 dates); names and values are
// percent-encoded where the place needs it, so that the bytes signed are the bytes sent.
import { bracketEntries, bracketName, isScalar } from "./nested-values.js";
import { formatValue, percentEncode } from "./wire-encoding.js";

export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** How one parameter travels: a generated operation table's `parameters` entry. */
export interface ParameterWire {
  readonly name: string;
  readonly in: ParameterLocation;
  /** OpenAPI's style; the location's default when absent (form for query and cookie, simple otherwise). */
  readonly style?: string;
  /** OpenAPI's explode; true for form, false for the others when absent. */
  readonly explode?: boolean;
  /** The value is one JSON document (`content: application/json`). */
  readonly json?: boolean;
  /** Reserved characters (RFC 3986 `:/?#[]@!$&'()*+,;=`) are sent as they are (query only). */
  readonly allowReserved?: boolean;
}

const DEFAULT_STYLE: Record<ParameterLocation, string> = {
  path: "simple",
  query: "form",
  header: "simple",
  cookie: "form",
};

/** The parameter's style and explode, with OpenAPI's defaults filled in. */
export function styleOf(wire: ParameterWire): { style: string; explode: boolean } {
  const style = wire.style ?? DEFAULT_STYLE[wire.in];
  return { style, explode: wire.explode ?? style === "form" };
}

type Encode = (text: string) => string;

const RESERVED = /%(3A|2F|3F|23|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi;

/** percentEncode, keeping reserved characters as they are (allowReserved). */
function encodeAllowingReserved(text: string): string {
  return percentEncode(text).replace(RESERVED, (encoded) => decodeURIComponent(encoded));
}

function scalarText(name: string, value: unknown): string {
  return formatValue(name, value, false);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The defined entries of an object value, each as text. */
function objectEntries(name: string, value: Record<string, unknown>): [string, string][] {
  return Object.entries(value)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => [k, scalarText(`${name}.${k}`, v)]);
}

function arrayItems(name: string, value: unknown[]): string[] {
  return value.filter((v) => v !== undefined && v !== null).map((v) => scalarText(name, v));
}

/**
 * `name=value` pairs of one query (or form body) parameter, already percent-encoded and joined
 * with `&`; "" when the value is undefined or null.
 */
export function queryPart(wire: ParameterWire, value: unknown): string {
  if (value === undefined || value === null) return "";
  const encode: Encode = wire.allowReserved ? encodeAllowingReserved : percentEncode;
  const name = percentEncode(wire.name);
  if (wire.json) return `${name}=${encode(JSON.stringify(value))}`;
  // A scalar is `name=value` whatever the style: the common case, without the style's work.
  if (isScalar(value)) return `${name}=${encode(scalarText(wire.name, value))}`;
  const { style, explode } = styleOf(wire);
  // deepObject, and values nested below what an exploded form writes, in brackets (nested-values.ts).
  const bracketed = (path: string[], v: unknown) =>
    bracketEntries(path, v)
      .map((leaf) => `${bracketName(leaf.path, percentEncode)}=${encode(scalarText(wire.name, leaf.value))}`)
      .join("&");
  if (style === "deepObject" && !isScalar(value)) return bracketed([wire.name], value);
  if (Array.isArray(value)) {
    if (explode && !value.every(isScalar)) return bracketed([wire.name], value);
    const items = arrayItems(wire.name, value).map(encode);
    if (explode) return items.map((item) => `${name}=${item}`).join("&");
    const separator = style === "spaceDelimited" ? "%20" : style === "pipeDelimited" ? "|" : ",";
    return `${name}=${items.join(separator)}`;
  }
  if (isPlainObject(value)) {
    if (explode) {
      return Object.entries(value)
        .map(([k, v]) => bracketed([k], v))
        .filter((part) => part !== "")
        .join("&");
    }
    const entries = objectEntries(wire.name, value);
    return `${name}=${entries.map(([k, v]) => `${percentEncode(k)},${encode(v)}`).join(",")}`;
  }
  return `${name}=${encode(scalarText(wire.name, value))}`;
}

/** The text that replaces `{name}` in the path template (simple, label or matrix style). */
export function pathSegment(wire: ParameterWire, value: unknown): string {
  if (value === undefined || value === null) {
    throw new TypeError(`path parameter "${wire.name}" is required`);
  }
  const { style, explode } = styleOf(wire);
  const name = percentEncode(wire.name);
  const prefix = style === "label" ? "." : style === "matrix" ? ";" : "";
  if (wire.json) return `${prefix}${percentEncode(JSON.stringify(value))}`;
  if (Array.isArray(value)) {
    const items = arrayItems(wire.name, value).map(percentEncode);
    if (style === "matrix") {
      return explode ? items.map((i) => `;${name}=${i}`).join("") : `;${name}=${items.join(",")}`;
    }
    return prefix + items.join(explode && style === "label" ? "." : ",");
  }
  if (isPlainObject(value)) {
    const entries = objectEntries(wire.name, value).map(([k, v]) => [percentEncode(k), percentEncode(v)]);
    if (explode) {
      const separator = style === "simple" ? "," : prefix;
      return prefix + entries.map(([k, v]) => `${k}=${v}`).join(separator);
    }
    const flat = entries.map(([k, v]) => `${k},${v}`).join(",");
    return style === "matrix" ? `;${name}=${flat}` : prefix + flat;
  }
  const text = percentEncode(scalarText(wire.name, value));
  return style === "matrix" ? `;${name}=${text}` : prefix + text;
}

/** A header parameter's value (simple style); undefined when there is none to send. */
export function headerValue(wire: ParameterWire, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (wire.json) return JSON.stringify(value);
  if (Array.isArray(value)) return arrayItems(wire.name, value).join(",");
  if (isPlainObject(value)) {
    const { explode } = styleOf(wire);
    return objectEntries(wire.name, value)
      .map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`))
      .join(",");
  }
  return scalarText(wire.name, value);
}

/** A cookie parameter as `name=value` for the Cookie header (form style, values percent-encoded). */
export function cookiePair(wire: ParameterWire, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const name = percentEncode(wire.name);
  if (wire.json) return `${name}=${percentEncode(JSON.stringify(value))}`;
  if (Array.isArray(value)) return `${name}=${arrayItems(wire.name, value).map(percentEncode).join(",")}`;
  if (isPlainObject(value)) {
    const flat = objectEntries(wire.name, value).map(([k, v]) => `${percentEncode(k)},${percentEncode(v)}`);
    return `${name}=${flat.join(",")}`;
  }
  return `${name}=${percentEncode(scalarText(wire.name, value))}`;
}

/** The path template with each `{name}` replaced by its parameter's segment. */
export function fillPath(
  template: string,
  wires: ReadonlyMap<string, ParameterWire>,
  params: Readonly<Record<string, unknown>>,
): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const wire = wires.get(name) ?? { name, in: "path" as const };
    return pathSegment(wire, params[name]);
  });
}
