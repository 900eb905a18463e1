// The code samples of a fork's site, for the constructs a fork adds and this repository's spec has
// not: a path parameter (percent-encoded), a JSON request body, a header parameter, and HTTP
// bearer, HTTP basic and an API key in the query. The real `marketapi-docs build` writes the site;
// its samples are checked against golden text, then run as a reader runs them: the shell ones by
// bash, the Python ones by python3, the TypeScript ones type-checked by strict tsc together with
// the client `marketapi-codegen --client` generates from the fork, and run by node. Each runs
// against a server on 127.0.0.1 that records what arrived; every language must send exactly the
// request the table below wants.
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { operationEntries } from "@marketapi/spec/model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../src/json.js";
import { PACKAGE_DIR } from "./support/dist.js";
import { forkSpec } from "./support/fork.js";
import {
  type ProcessResult,
  pythonInterpreter,
  runProcess,
  sampleFolder,
  type TypeScriptProject,
  typeScriptProject,
  which,
} from "./support/sample-runner.js";

const DOCS_BIN = join(PACKAGE_DIR, "bin", "marketapi-docs.js");
const CODEGEN_BIN = join(
  dirname(createRequire(import.meta.url).resolve("@marketapi/codegen/package.json")),
  "bin",
  "marketapi-codegen.js",
);

/** The credentials the samples read, as a reader sets them. */
const CREDENTIALS = {
  ACCESS_TOKEN: "fork-token",
  API_USERNAME: "fork-user",
  API_PASSWORD: "fork pw:1",
  API_KEY: "fork-key",
};
const BASIC = `Basic ${Buffer.from(`${CREDENTIALS.API_USERNAME}:${CREDENTIALS.API_PASSWORD}`).toString("base64")}`;

/** The fork of support/fork.ts, with the constructs its three added operations leave out. */
function forkWithConstructs(): JsonObject {
  const fork = forkSpec() as JsonObject & { paths: JsonObject; components: { securitySchemes: JsonObject } };
  const answer = {
    "200": {
      description: "Done.",
      content: { "application/json": { schema: { type: "object" }, example: { ok: true } } },
    },
  };
  fork.components.securitySchemes.basic = { type: "http", scheme: "basic" };
  fork.components.securitySchemes.queryKey = { type: "apiKey", in: "query", name: "api_key" };
  fork.paths["/api/v3/alerts/{alertId}"] = {
    delete: {
      operationId: "delete-alert",
      summary: "Delete a price alert",
      "x-auth-class": "none",
      "x-weight": 1,
      security: [{ basic: [] }],
      parameters: [
        { name: "alertId", in: "path", required: true, schema: { type: "string" }, example: "dip & rise/1" },
        { name: "X-Request-Id", in: "header", required: true, schema: { type: "string" }, example: "req-7" },
      ],
      responses: answer,
    },
  };
  fork.paths["/api/v3/watchlist"] = {
    get: {
      operationId: "watchlist.list",
      summary: "The caller's watch list",
      "x-auth-class": "none",
      "x-weight": 1,
      security: [{ queryKey: [] }],
      parameters: [
        { name: "tag", in: "query", required: true, schema: { type: "string" }, example: "50% off" },
      ],
      responses: answer,
    },
  };
  return fork;
}

interface WantedRequest {
  method: string;
  path: string;
  /** The query string's parts, sorted (the languages may order them differently). */
  query: string[];
  headers: Record<string, string>;
  body?: unknown;
}

/** What each of the fork's operations must send, in every language. */
const WANTED: Record<string, WantedRequest> = {
  order_by_id: { method: "GET", path: "/api/v3/order/12", query: [], headers: {} },
  create_alert: {
    method: "POST",
    path: "/api/v3/alerts",
    query: [],
    headers: { "content-type": "application/json" },
    body: { symbol: "BTCUSDT" },
  },
  profile: {
    method: "GET",
    path: "/api/v3/profile",
    query: [],
    headers: { authorization: `Bearer ${CREDENTIALS.ACCESS_TOKEN}` },
  },
  "delete-alert": {
    method: "DELETE",
    path: "/api/v3/alerts/dip%20%26%20rise%2F1",
    query: [],
    headers: { authorization: BASIC, "x-request-id": "req-7" },
  },
  "watchlist.list": {
    method: "GET",
    path: "/api/v3/watchlist",
    query: ["api_key=fork-key", "tag=50%25%20off"],
    headers: {},
  },
};
const FORK_OPERATIONS = Object.keys(WANTED);

interface Recorded {
  method: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A server on 127.0.0.1 that records every request and answers it with `{"ok":true}`. */
async function startRecordingServer() {
  let recorded: Recorded[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const url = incoming.url ?? "/";
      const at = url.indexOf("?");
      recorded.push({
        method: incoming.method ?? "",
        path: at === -1 ? url : url.slice(0, at),
        query: at === -1 ? "" : url.slice(at + 1),
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      outgoing.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take() {
      const out = recorded;
      recorded = [];
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The recorded request in the shape of WANTED: only the headers the table names. */
function asWanted(request: Recorded, wanted: WantedRequest): WantedRequest {
  return {
    method: request.method,
    path: request.path,
    query: request.query === "" ? [] : request.query.split("&").sort(),
    headers: Object.fromEntries(
      Object.keys(wanted.headers).map((name) => [name, String(request.headers[name] ?? "(absent)")]),
    ),
    ...(wanted.body !== undefined
      ? { body: request.body === "" ? "(empty)" : JSON.parse(request.body) }
      : {}),
  };
}

function explain(what: string, result: ProcessResult): string {
  return `${what} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

const site = sampleFolder();
const files = sampleFolder();
let samples: Map<string, Map<string, string>>;
let project: TypeScriptProject;
let server: Awaited<ReturnType<typeof startRecordingServer>>;
let buildOutput: ProcessResult;
let typeChecked: Promise<ProcessResult> | undefined;
/** strict tsc over the samples and the generated client, once (it also writes out/ for node). */
const typeCheck = () => {
  typeChecked ??= project.typeCheck();
  return typeChecked;
};

beforeAll(async () => {
  const specFile = site.write("acme.openapi.json", `${JSON.stringify(forkWithConstructs(), null, 2)}\n`);
  const env = { PATH: process.env.PATH ?? "" };
  buildOutput = await runProcess(
    process.execPath,
    [
      DOCS_BIN,
      "build",
      "--spec",
      specFile,
      "--out",
      site.path("site"),
      "--samples",
      "curl,python,typescript",
    ],
    env,
  );
  if (buildOutput.code !== 0) throw new Error(explain("marketapi-docs build", buildOutput));
  const built = JSON.parse(readFileSync(site.path("site/api.openapi.json"), "utf8")) as JsonObject;
  samples = new Map(
    operationEntries(built).map(({ operation }) => [
      String(operation.operationId),
      new Map(
        ((operation["x-codeSamples"] ?? []) as JsonObject[]).map((s) => [String(s.label), String(s.source)]),
      ),
    ]),
  );
  // The samples import the client from ./generated/client.gen.js, where --out generated puts it.
  project = typeScriptProject(
    new Map(FORK_OPERATIONS.map((id) => [fileName(id), sampleOf(id, "TypeScript")])),
  );
  mkdirSync(join(project.dir, "src", "generated"));
  const generated = await runProcess(
    process.execPath,
    [CODEGEN_BIN, "--spec", specFile, "--out", join(project.dir, "src", "generated"), "--client"],
    env,
  );
  if (generated.code !== 0) throw new Error(explain("marketapi-codegen --client", generated));
  server = await startRecordingServer();
});

afterAll(async () => {
  await server?.close();
  project?.remove();
  site.remove();
  files.remove();
});

function fileName(operationId: string): string {
  return operationId.replace(/[^A-Za-z0-9_]/g, "_");
}

function sampleOf(operationId: string, label: string): string {
  const source = samples.get(operationId)?.get(label);
  if (source === undefined) throw new Error(`${operationId} has no ${label} sample on the fork's page`);
  return source;
}

describe("the code samples of a fork's constructs", () => {
  it("gives every operation of the fork samples: nothing listed as unwritable", () => {
    expect(buildOutput.stdout).not.toMatch(/note: no code sample/);
    for (const id of FORK_OPERATIONS)
      expect([...(samples.get(id)?.keys() ?? [])], id).toEqual(["curl", "TypeScript", "Python"]);
  });

  it("match the golden samples", async () => {
    const text = FORK_OPERATIONS.flatMap((id) =>
      ["curl", "TypeScript", "Python"].map(
        (label) => `## ${id} · ${label}\n\n\`\`\`\n${sampleOf(id, label)}\`\`\`\n`,
      ),
    ).join("\n");
    await expect(
      `# Fork code samples (generated; update with \`npx vitest run -u test/fork-samples\`)\n\n${text}`,
    ).toMatchFileSnapshot("./golden/fork-code-samples.md");
  });

  it("type-check, TypeScript with the generated client under strict tsc", async () => {
    const checked = await typeCheck();
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.code).toBe(0);
  });

  it("parse: bash -n and Python's compiler accept every shell and Python sample", async () => {
    for (const id of FORK_OPERATIONS) {
      const shell = files.write(`${fileName(id)}.sh`, sampleOf(id, "curl"));
      const python = files.write(`${fileName(id)}.py`, sampleOf(id, "Python"));
      const env = { PATH: process.env.PATH ?? "" };
      const bash = await runProcess("bash", ["-n", shell], env);
      expect(bash.stderr, `${id} curl`).toBe("");
      const compiled = await runProcess(
        pythonInterpreter(),
        ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])", python],
        env,
      );
      expect(compiled.stderr, `${id} Python`).toBe("");
    }
  });

  const languages = [
    {
      label: "curl",
      needs: ["bash", "curl"],
      command: (id: string) => ["bash", [files.write(`${fileName(id)}.sh`, sampleOf(id, "curl"))]],
    },
    {
      label: "Python",
      needs: ["python3"],
      command: (id: string) => [
        pythonInterpreter(),
        [files.write(`${fileName(id)}.py`, sampleOf(id, "Python"))],
      ],
    },
    {
      label: "TypeScript",
      needs: [],
      command: (id: string) => [process.execPath, [project.compiled(fileName(id))]],
    },
  ] as const;

  describe.each(languages)("$label", ({ label, needs, command }) => {
    const missing = needs.filter((name) => which(name) === undefined);
    it.each(FORK_OPERATIONS)(`%s runs and sends the request the table wants`, async (id) => {
      expect(missing, `${label} samples need ${missing.join(", ")} on PATH`).toEqual([]);
      if (label === "TypeScript") {
        const checked = await typeCheck();
        expect(checked.code, checked.stdout).toBe(0);
      }
      const [program, args] = command(id) as [string, string[]];
      server.take();
      const ran = await runProcess(program, args, {
        PATH: process.env.PATH ?? "",
        BASE_URL: server.url,
        ...CREDENTIALS,
      });
      expect(ran.code, explain(`${id} ${label}`, ran)).toBe(0);
      expect(ran.stdout).toMatch(/"ok": ?true/);
      const sent = server.take();
      expect(sent).toHaveLength(1);
      const wanted = WANTED[id]!;
      expect(asWanted(sent[0]!, wanted)).toEqual(wanted);
    });
  });
});
