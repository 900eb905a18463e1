// Generates a client with each third-party generator from the bundled spec, the way their users
// do: Node APIs with the options a user would pick, plus the workarounds the compatibility table
// declares for what a generator cannot express.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createClient } from "@hey-api/openapi-ts";
import { loadOpenApi, openapiJsonPath } from "@marketapi/spec";
import { operationEntries } from "@marketapi/spec/model";
import openapiTS, { astToString } from "openapi-typescript";
import { generate as orval } from "orval";
import type { GeneratorId } from "./tools.js";

/** Where each generator's output goes: src/generated/<generator>/. */
export const generatedDir = (id: GeneratorId): string =>
  new URL(`./generated/${id}/`, import.meta.url).pathname;

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document as parsed JSON, walked by hand
type OpenApi = Record<string, any>;

/**
 * orval 7.13's fetch client reads `parameter.schema.type` of every query parameter and crashes on
 * one described with `content` (`symbols`). Its `transformer` hook gets the document first: the
 * parameter becomes the JSON text it is on the wire, a string.
 */
export function symbolsAsJsonText(document: OpenApi): OpenApi {
  const symbols = document.components.parameters.Symbols;
  symbols.schema = { type: "string", description: symbols.description };
  delete symbols.content;
  return document;
}

/**
 * orval 7.13 writes a range status key into a type as it is (`status: 5XX`), which is not
 * TypeScript. The range becomes `default` (orval types that `status: number`), which still
 * covers every 5xx answer.
 */
export function rangeStatusesAsDefault(document: OpenApi): OpenApi {
  for (const { operation } of operationEntries(document)) {
    const responses = operation.responses as Record<string, unknown> | undefined;
    if (!responses) continue;
    for (const status of Object.keys(responses)) {
      if (/^[1-5]XX$/.test(status) && responses.default === undefined) {
        responses.default = responses[status];
        delete responses[status];
      }
    }
  }
  return document;
}

const generators: Record<GeneratorId, (out: string) => Promise<void>> = {
  "openapi-fetch": async (out) => {
    const nodes = await openapiTS(loadOpenApi() as never, { silent: true });
    writeFileSync(join(out, "schema.ts"), astToString(nodes));
  },
  "hey-api": async (out) => {
    await createClient({
      input: openapiJsonPath,
      output: { path: out, importFileExtension: ".js" },
      plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
      logs: { level: "silent" },
    });
  },
  orval: async (out) => {
    const mutator = new URL("./drivers/orval-fetch.ts", import.meta.url).pathname;
    await orval({
      input: {
        target: openapiJsonPath,
        override: {
          transformer: (document) =>
            rangeStatusesAsDefault(symbolsAsJsonText(document as OpenApi)) as typeof document,
        },
      },
      output: {
        target: join(out, "api.ts"),
        client: "fetch",
        mode: "single",
        // NodeNext resolution wants the extension on relative imports.
        override: {
          mutator: { path: relative(process.cwd(), mutator), name: "orvalFetch", extension: ".js" },
        },
      },
    });
  },
};

/** Generates one client into its folder, replacing what was there. */
export async function generateClient(id: GeneratorId): Promise<string> {
  const out = generatedDir(id);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await generators[id](out);
  return out;
}
