// The corpus: public OpenAPI descriptions nobody here wrote, read as their authors publish them on
// npm (tools/spec-corpus, installed on first use outside the repository; nothing is edited). For
// each: the real command generates the client into a consumer project, strict tsc checks it, and
// the client calls every operation (a fixed sample of GitHub's 1,000-odd) against Prism mocking
// that same description on 127.0.0.1, with values made from each operation's schemas and a
// credential for every security scheme. The README's corpus table lists the results. The docs of
// the same files are packages/docs/test/public-specs.test.ts.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSpecModel } from "@marketapi/spec/model";
import { upgradeOpenApi30 } from "@marketapi/spec-loader";
import { afterAll, describe, expect, it } from "vitest";
import { corpusFile, pickFixed, startPrism } from "../../../scripts/spec-corpus.mjs";
import { readClientModel } from "../src/client/client-operations.js";
import { buildModel } from "../src/spec-input/spec-model.js";
import { cleanScratch, codegen, REPO_ROOT, run, STRICT_TSCONFIG, scratchDir } from "./cli-support.js";
import { sampleOf } from "./corpus-values.js";

const TSC = join(REPO_ROOT, "node_modules/.bin/tsc");
const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");

interface Entry {
  name: string;
  /** The file in the published package. */
  file: string;
  /** How many operations are called against Prism (all when absent), picked with a fixed seed. */
  sample?: number;
  /** Why its operations are not called against Prism, where they are not. */
  noMock?: string;
  /** Where the entry runs with MARKETAPI_CORPUS_FULL=1 only: the entries of the default run that cover what it brings. */
  fullOnly?: string;
}

/** MARKETAPI_CORPUS_FULL=1: every entry, and GitHub's every operation (README: the corpus). */
const FULL = process.env.MARKETAPI_CORPUS_FULL === "1";

const CORPUS: Entry[] = [
  { name: "Train Travel API (Bump.sh), 3.1", file: "@readme/oas-examples/3.1/json/train-travel.json" },
  { name: "Swagger Petstore (OpenAPI Initiative), 3.0", file: "@readme/oas-examples/3.0/json/petstore.json" },
  {
    name: "USPTO Data Set API, 3.0",
    file: "@readme/oas-examples/3.0/json/uspto.json",
    fullOnly:
      "its form body and path parameters are Petstore's (updatePetWithForm, getPetById), its 3.0.x upgrade Petstore's and GitHub's (the docs' corpus test leaves it to the full run too)",
  },
  {
    name: "ReadMe parameter styles, 3.1",
    file: "@readme/oas-examples/3.1/json/parameters-style.json",
    noMock:
      "Prism 5.14 crashes in its cookie parameter validator on it (TypeError in prism-http's params.js)",
  },
  { name: "ReadMe security schemes, 3.1", file: "@readme/oas-examples/3.1/json/security.json" },
  // All of GitHub's operations take minutes to generate and type-check on a 2-core machine (README:
  // the corpus): the test generates a fixed sample of 40 with --operations, read from the whole
  // 13 MB document; MARKETAPI_CORPUS_FULL=1 generates and type-checks all of them.
  {
    name: "GitHub REST API, 3.0.3, 13 MB",
    file: "@octokit/openapi/generated/api.github.com.json",
    sample: FULL ? undefined : 40,
    // Prism reading 13 MB costs the suite more than the rest of the corpus together.
    ...(FULL
      ? {}
      : {
          noMock:
            "Prism on the 13 MB file runs with MARKETAPI_CORPUS_FULL=1 (calls were seen to pass on the sample)",
        }),
  },
];

/** The entries this run takes: those of the default run, or all of them with MARKETAPI_CORPUS_FULL=1. */
const RUN = CORPUS.filter((entry) => FULL || entry.fullOnly === undefined);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) cleanScratch(dir);
});

const MAIN = `import { readFileSync } from "node:fs";
import { createApiClient } from "@marketapi/client";
import { api } from "./generated/client.gen.js";

const client = createApiClient(api, {
  baseUrl: process.env.BASE_URL ?? "",
  // An answer's redirect (a mocked 302 to the author's servers) is not followed: no network.
  fetch: (url, init) => fetch(url, { ...init, redirect: "manual" }),
  apiKey: "corpus-key",
  apiSecret: "corpus-secret",
  bearerToken: "corpus-token",
  auth: JSON.parse(process.env.AUTH ?? "{}"),
});
const calls = JSON.parse(readFileSync("calls.json", "utf8")) as [string, Record<string, unknown>][];
const methods = client as unknown as Record<string, (params: unknown) => Promise<{ response: Response; error?: unknown }>>;
const results: [string, number, string][] = [];
for (const [method, params] of calls) {
  const { response, error } = await methods[method]!(params);
  results.push([method, response.status, response.ok ? "" : String(JSON.stringify(error) ?? "").slice(0, 300)]);
}
console.log(JSON.stringify(results));
`;

describe.concurrent("the corpus of public specs", () => {
  it.each(RUN)(
    "$name: generates, type-checks under strict tsc, and calls its operations on Prism",
    async ({ file, sample: count, noMock }) => {
      const path = corpusFile(file);
      const text = readFileSync(path, "utf8");
      const raw = JSON.parse(text);
      const document = /^3\.0\./.test(raw.openapi) ? upgradeOpenApi30(raw) : raw;
      const dir = scratchDir("corpus");
      dirs.push(dir);
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: "corpus", private: true, type: "module" }),
      );
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(STRICT_TSCONFIG));
      mkdirSync(join(dir, "src"));
      writeFileSync(join(dir, "src/main.ts"), MAIN);

      const client = readClientModel(buildModel({ source: path, document }));
      const picked = pickFixed(client.operations, count);
      const ids = picked.map((c) => c.operation.operationId).join(",");
      const only = count === undefined ? [] : ["--operations", ids];
      const args = ["--spec", path, "--out", "src/generated", "--client", ...only];
      const generated = await codegen(args, { cwd: dir });
      expect(generated.stderr).toBe("");
      expect(generated.code).toBe(0);
      const typed = await run(TSC, ["-p", "tsconfig.json"], { cwd: dir });
      expect(typed.stdout + typed.stderr).toBe("");

      if (noMock) return;
      const model = buildSpecModel(document);
      const calls = picked.map(({ operation, methodName, body }) => {
        const params: Record<string, unknown> = {};
        for (const parameter of operation.parameters) {
          if (parameter.required || parameter.in === "path") {
            params[parameter.name] = sampleOf(model.document, parameter.schema);
          }
        }
        if (body?.required) {
          const media = operation.requestBody!.content.find((c) => c.mediaType === body.mediaType);
          const value = sampleOf(model.document, media?.schema);
          params.body =
            /multipart|octet-stream/.test(body.mediaType) && typeof value !== "object" ? "bytes" : value;
        }
        return [methodName, params];
      });
      writeFileSync(join(dir, "calls.json"), JSON.stringify(calls));
      const auth = Object.fromEntries(
        Object.entries(client.schemes)
          .filter(([, scheme]) => scheme.type === "http" && scheme.scheme === "basic")
          .map(([name]) => [name, { username: "corpus", password: "pw" }]),
      );
      const prism = await startPrism(path);
      try {
        const ran = await run(TSX, ["src/main.ts"], {
          cwd: dir,
          env: { ...process.env, BASE_URL: prism.url, AUTH: JSON.stringify(auth) },
        });
        expect(ran.stderr).toBe("");
        const results = JSON.parse(ran.stdout) as [string, number, string][];
        expect(results.map(([method]) => method)).toEqual(calls.map(([method]) => method));
        // Every operation reached its route on Prism and got an answer the description declares:
        // no "no path matched", no refused request (422), no server error.
        const failed = results.filter(
          ([, status, error]) => status >= 500 || status === 422 || /NO_PATH_MATCHED|NO_METHOD/.test(error),
        );
        expect(failed).toEqual([]);
      } finally {
        await prism.stop();
      }
    },
    900_000,
  );
});
