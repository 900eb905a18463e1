// The bundled spec of @marketapi/spec, read independently of the generated client, so tests compare
// the client's behaviour with the spec rather than with the client's own table.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// biome-ignore lint/suspicious/noExplicitAny: the spec is untyped JSON
export type Json = any;

const require = createRequire(import.meta.url);
export const spec: Json = JSON.parse(readFileSync(require.resolve("@marketapi/spec/openapi.json"), "utf8"));

export interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  authClass: "none" | "market_data" | "trade" | "user_data";
  operation: Json;
}

export const specOperations: SpecOperation[] = Object.entries<Json>(spec.paths).flatMap(([path, item]) =>
  ["get", "post", "delete", "put", "patch"]
    .filter((method) => item[method])
    .map((method) => ({
      operationId: item[method].operationId,
      method: method.toUpperCase(),
      path,
      authClass: item[method]["x-auth-class"],
      operation: item[method],
    })),
);

/** The example of an operation's 200 answer. */
export function successExample(operation: Json): unknown {
  return operation.responses["200"].content["application/json"].example;
}

export const signing: Json = spec.components.securitySchemes.signature["x-signing"];
