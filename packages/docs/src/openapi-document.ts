// Read access to a parsed OpenAPI 3.1 document, kept loose on purpose: the document has been
// linted before it reaches this package, and the docs must render whatever the spec says.

export type JsonObject = Record<string, unknown>;

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationEntry {
  path: string;
  method: HttpMethod;
  /** The operation object itself (mutations show up in the document it came from). */
  operation: JsonObject;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function objectAt(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

export function stringAt(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function stringsAt(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Every operation of `paths`, in document order. */
export function operationsOf(document: JsonObject): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [path, pathItem] of Object.entries(objectAt(document.paths))) {
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (isObject(operation)) entries.push({ path, method, operation });
    }
  }
  return entries;
}

/** The last segment of a local `$ref` (`#/components/schemas/NewOrderAck` → `NewOrderAck`). */
export function refName(ref: string): string {
  const segment = ref.split("/").pop() ?? ref;
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
