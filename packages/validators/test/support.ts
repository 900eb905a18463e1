// Shared test helpers: the Endpoint fixtures of specs/examples and the examples of the spec.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadEndpointSchema, loadOpenApi } from "@marketapi/spec";
import { expect } from "vitest";

const fixturesDir = fileURLToPath(new URL("../../../specs/examples/endpoint/", import.meta.url));

export interface Fixture {
  file: string;
  data: unknown;
}

export interface InvalidFixture extends Fixture {
  description: string;
  paths: string[];
}

function jsonFiles(folder: string): { file: string; json: Record<string, unknown> }[] {
  return readdirSync(`${fixturesDir}${folder}`)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((file) => ({ file, json: JSON.parse(readFileSync(`${fixturesDir}${folder}/${file}`, "utf8")) }));
}

export function validEndpoints(): Fixture[] {
  return jsonFiles("valid").map(({ file, json }) => ({ file, data: json }));
}

export function invalidEndpoints(): InvalidFixture[] {
  return jsonFiles("invalid").map(({ file, json }) => ({
    file,
    data: json.data,
    description: json.description as string,
    paths: [
      ...new Set([json.expectedPath as string, ...((json.otherPaths as string[] | undefined) ?? [])]),
    ].sort(),
  }));
}

/** The Endpoint schema as @marketapi/spec ships it. */
export const endpointSchema = loadEndpointSchema() as { properties: Record<string, unknown> };

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is untyped test input
export const openapi = loadOpenApi() as Record<string, any>;

// biome-ignore lint/suspicious/noExplicitAny: see above
function resolve(node: any): any {
  let current = node;
  while (current && typeof current.$ref === "string") {
    current = current.$ref
      .slice(2)
      .split("/")
      // biome-ignore lint/suspicious/noExplicitAny: see above
      .reduce((value: any, key: string) => value?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], openapi);
  }
  return current;
}

export interface ResponseExample {
  operationId: string;
  status: string;
  name: string;
  body: unknown;
}

/** Every response example of every operation (inline, referenced, `example` and `examples`). */
export function responseExamples(): ResponseExample[] {
  const found: ResponseExample[] = [];
  for (const item of Object.values(openapi.paths)) {
    for (const operation of Object.values(
      item as Record<string, { operationId?: string; responses?: object }>,
    )) {
      if (!operation?.operationId) continue;
      for (const [status, ref] of Object.entries(operation.responses ?? {})) {
        const media = resolve(ref)?.content?.["application/json"];
        if (!media) continue;
        if (media.example !== undefined) {
          found.push({ operationId: operation.operationId, status, name: "example", body: media.example });
        }
        for (const [name, example] of Object.entries(media.examples ?? {})) {
          found.push({ operationId: operation.operationId, status, name, body: resolve(example).value });
        }
      }
    }
  }
  return found;
}

/** Every `example` of a named schema. */
export function schemaExamples(): { name: string; example: unknown }[] {
  return Object.entries(openapi.components.schemas as Record<string, { example?: unknown }>)
    .filter(([, schema]) => schema.example !== undefined)
    .map(([name, schema]) => ({ name, example: schema.example }));
}

/** A valid LIMIT order, to break one rule at a time. */
export const limitOrder = {
  symbol: "BTCUSDT",
  side: "BUY",
  type: "LIMIT",
  timeInForce: "GTC",
  quantity: 1,
  price: 0.1,
};

/** The new_order FULL example of the spec (the 200 response example). */
export function newOrderFull(): Record<string, unknown> {
  const example = responseExamples().find((e) => e.operationId === "new_order" && e.status === "200");
  return structuredClone(example!.body) as Record<string, unknown>;
}

/**
 * Expected ValidationErrors given by their path, rule and message: each matches an error with
 * those fields, whatever structured `keyword` and `params` it carries (tested on their own).
 */
// biome-ignore lint/suspicious/noExplicitAny: asymmetric matchers are typed any by vitest
export function faults(list: readonly object[]): any[] {
  return list.map((fault) => expect.objectContaining(fault));
}
