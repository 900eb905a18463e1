// Every code sample of the built document (dist/api.openapi.json, the document api.html renders),
// run exactly as printed against a reference server on 127.0.0.1: the shell samples by bash, the
// Python ones by python3, the TypeScript ones type-checked by strict tsc and run by node. Each
// language runs its samples in the documented order against a fresh server, with only BASE_URL,
// API_KEY, API_SECRET (and PATH) set. Each answer is checked with @marketapi/validators against
// the request as the server received it, and what each sample sent must be what the TypeScript
// sample's comment says is sent: the same bytes in all three languages.

import { type RunningServer, startServer } from "@marketapi/reference-server";
import { operationEntries } from "@marketapi/spec/model";
import { parseRequest, validateResponse } from "@marketapi/validators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../src/json.js";
import { planRequests, type SequenceStep, sampleSequence } from "../src/samples/sample-requests.js";
import { readSampleSpec } from "../src/samples/sample-spec.js";
import { envelopePlaceholders, FORM_BODY_WORDS, WIRE_COMMENT } from "../src/samples/typescript-sample.js";
import { assertDistBuilt, readDistJson } from "./support/dist.js";
import {
  type ProcessResult,
  pythonInterpreter,
  type RecordedRequest,
  type RecordingProxy,
  runProcess,
  sampleFolder,
  startRecordingProxy,
  type TypeScriptProject,
  typeScriptProject,
  which,
} from "./support/sample-runner.js";

assertDistBuilt();
const document = readDistJson("api.openapi.json");
const spec = readSampleSpec(document);
const steps = sampleSequence(planRequests(spec));
/** The signing rule and key header, as the signed operations of the built document carry them. */
const signedCredentials = (() => {
  const signed = spec.operations.map((op) => op.credentials).find((c) => c.kind === "signed");
  if (signed?.kind !== "signed") throw new Error("dist/api.openapi.json has no signed operation");
  return signed;
})();
const placeholders = envelopePlaceholders(signedCredentials.signing);

/** The samples of the built document: operationId → label → source. */
const samples = new Map(
  operationEntries(document).map(({ operation }) => [
    String(operation.operationId),
    new Map(
      (Array.isArray(operation["x-codeSamples"]) ? (operation["x-codeSamples"] as JsonObject[]) : []).map(
        (sample) => [String(sample.label), String(sample.source)],
      ),
    ),
  ]),
);

function sampleSource(operationId: string, label: string): string {
  const source = samples.get(operationId)?.get(label);
  if (source === undefined) throw new Error(`dist/api.openapi.json: ${operationId} has no ${label} sample`);
  return source;
}

/** What the TypeScript sample's comment says the request is: `GET /path?query` or with a form body. */
function claimedWire(operationId: string): { method: string; path: string; query: string; body: string } {
  const line = sampleSource(operationId, "TypeScript")
    .split("\n")
    .find((l) => l.startsWith(WIRE_COMMENT));
  if (!line) throw new Error(`${operationId}: the TypeScript sample has no "${WIRE_COMMENT}" comment`);
  const text = line.slice(WIRE_COMMENT.length);
  const method = text.slice(0, text.indexOf(" "));
  const target = text.slice(method.length + 1);
  if (target.includes(FORM_BODY_WORDS)) {
    const [path = "", body = ""] = target.split(FORM_BODY_WORDS);
    return { method, path, query: "", body };
  }
  const queryAt = target.indexOf("?");
  return queryAt === -1
    ? { method, path: target, query: "", body: "" }
    : { method, path: target.slice(0, queryAt), query: target.slice(queryAt + 1), body: "" };
}

/** A recorded parameter string with the signing envelope's values replaced by the placeholders. */
function withPlaceholders(encoded: string): string {
  const { timestampParameter, signatureParameter } = signedCredentials.signing;
  return encoded
    .replace(
      new RegExp(`(^|&)${timestampParameter}=\\d+`),
      `$1${timestampParameter}=${placeholders.timestamp}`,
    )
    .replace(
      new RegExp(`(^|&)${signatureParameter}=[0-9a-f]{64}$`),
      `$1${signatureParameter}=${placeholders.signature}`,
    );
}

function joinParams(...parts: string[]): string {
  return parts.filter((part) => part !== "").join("&");
}

/** The checks every answer of every language goes through. */
function checkStep(
  step: SequenceStep,
  result: ProcessResult,
  recorded: RecordedRequest[],
  apiKey: string,
): void {
  const { operationId } = step.request.operation;
  expect(result.code, `${operationId} exited with ${result.code}:\n${result.stderr}${result.stdout}`).toBe(0);
  expect(recorded, `${operationId} sends one request`).toHaveLength(1);
  const [sent] = recorded as [RecordedRequest];

  // The bytes on the wire are the ones the document shows (JSON symbols, plain decimals, form body).
  const claim = claimedWire(operationId);
  expect({
    method: sent.method,
    path: sent.path,
    query: withPlaceholders(sent.query),
    body: withPlaceholders(sent.body),
  }).toEqual(claim);
  if (sent.body !== "") expect(sent.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
  const { credentials } = step.request.operation;
  if (credentials.kind === "signed") {
    const signature = `&${credentials.signing.signatureParameter}=`;
    expect(sent.headers[credentials.header.toLowerCase()], `${operationId} sends the API key`).toBe(apiKey);
    expect(`&${sent.body || sent.query}`, `${operationId}: the signature comes last`).toMatch(
      new RegExp(`${signature}[0-9a-f]{64}$`),
    );
  }

  // The server's answer, printed by the sample, is what the spec documents for that request.
  let body: unknown;
  expect(() => {
    body = JSON.parse(result.stdout);
  }, `${operationId} printed JSON:\n${result.stdout}`).not.toThrow();
  const parsed = parseRequest(operationId as never, joinParams(sent.query, sent.body));
  expect(parsed, `${operationId}: the request as received`).toMatchObject({ valid: true });
  const request = parsed.valid ? parsed.params : undefined;
  expect(sent.status, `${operationId} answered ${sent.status}: ${result.stdout}`).toBe(200);
  expect(validateResponse(operationId as never, sent.status, body, { request })).toEqual({ valid: true });

  // The story of the sequence: the order rests, is found by its id, and is cancelled.
  const orders = [body].flat() as { status?: string; clientOrderId?: string }[];
  if (step.request.operation.orderTypeRules) expect(orders[0]?.status, "the order rests").toBe("NEW");
  if (step.request.operation.method === "delete") {
    expect(orders.length, `${operationId} cancels something`).toBeGreaterThan(0);
    for (const order of orders) expect(order.status).toBe("CANCELED");
  }
}

interface Runner {
  label: string;
  tools: string[];
  prepare(): Promise<void>;
  run(step: SequenceStep, env: Record<string, string>): Promise<ProcessResult>;
  cleanup(): void;
}

function scriptRunner(label: string, interpreter: string, extension: string, args: string[] = []): Runner {
  const folder = sampleFolder();
  return {
    label,
    tools: label === "curl" ? [interpreter, "curl", "openssl"] : [interpreter],
    async prepare() {
      for (const step of steps) {
        const id = step.request.operation.operationId;
        folder.write(`${id}.${extension}`, sampleSource(id, label));
      }
    },
    run: (step, env) =>
      runProcess(
        interpreter === "python3" ? pythonInterpreter() : (which(interpreter) ?? interpreter),
        [...args, folder.path(`${step.request.operation.operationId}.${extension}`)],
        env,
      ),
    cleanup: () => folder.remove(),
  };
}

function typeScriptRunner(): Runner & { project(): TypeScriptProject } {
  let project: TypeScriptProject | undefined;
  return {
    label: "TypeScript",
    tools: [],
    project: () => {
      if (!project) throw new Error("the TypeScript project was not prepared");
      return project;
    },
    async prepare() {
      const ids = [...new Set(steps.map((step) => step.request.operation.operationId))];
      project = typeScriptProject(new Map(ids.map((id) => [id, sampleSource(id, "TypeScript")])));
    },
    run: (step, env) =>
      runProcess(process.execPath, [project?.compiled(step.request.operation.operationId) ?? ""], env),
    cleanup: () => project?.remove(),
  };
}

const typescript = typeScriptRunner();
const runners: Runner[] = [
  scriptRunner("curl", "bash", "sh", ["--noprofile", "--norc"]),
  typescript,
  scriptRunner("Python", "python3", "py"),
];

describe.each(runners)("$label samples, run in order against the reference server", (runner) => {
  let server: RunningServer;
  let proxy: RecordingProxy;
  let env: Record<string, string>;

  beforeAll(async () => {
    const missing = runner.tools.filter((tool) => which(tool) === undefined);
    if (missing.length > 0) {
      throw new Error(
        `the ${runner.label} samples need ${missing.join(", ")} on PATH (Debian: apt-get install ${missing.join(" ")})`,
      );
    }
    await runner.prepare();
    server = await startServer({ port: 0 });
    proxy = await startRecordingProxy(server.url);
    env = {
      PATH: process.env.PATH ?? "",
      BASE_URL: proxy.url,
      API_KEY: server.demo.apiKey,
      API_SECRET: server.demo.apiSecret,
    };
  });

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    runner.cleanup();
  });

  if (runner === typescript) {
    it("type-check under strict tsc (exactOptionalPropertyTypes, noUncheckedIndexedAccess)", async () => {
      const result = await typescript.project().typeCheck();
      expect(result.code, `tsc:\n${result.stdout}${result.stderr}`).toBe(0);
    });
  }

  it.each(steps.map((step, index) => ({ step, index, name: step.request.operation.operationId })))(
    "step $index: $name",
    async ({ step }) => {
      proxy.take();
      const result = await runner.run(step, env);
      checkStep(step, result, proxy.take(), env.API_KEY ?? "");
    },
  );

  if (runner.label === "curl") {
    it("a sample that stops working fails these checks (control: a wrong digest in the signing rule)", async () => {
      const step = steps.find((s) => s.request.operation.credentials.kind === "signed");
      if (!step) throw new Error("the spec has no signed operation");
      const id = step.request.operation.operationId;
      const broken = sampleSource(id, "curl").replace(/openssl dgst -sha\d+/, "openssl dgst -sha512");
      expect(broken).not.toBe(sampleSource(id, "curl"));
      const folder = sampleFolder();
      try {
        proxy.take();
        const bash = which("bash") ?? "bash";
        const result = await runProcess(
          bash,
          ["--noprofile", "--norc", folder.write("broken.sh", broken)],
          env,
        );
        expect(() => checkStep(step, result, proxy.take(), env.API_KEY ?? "")).toThrow(/exited with 22/);
      } finally {
        folder.remove();
      }
    });
  }

  if (runner.label !== "TypeScript") {
    it("the market_data samples work without API_KEY, and then send no key", async () => {
      const step = steps.find((s) => s.request.operation.credentials.kind === "key-accepted");
      if (!step) throw new Error("the spec has no operation whose API key is optional");
      proxy.take();
      const { API_KEY: _key, API_SECRET: _secret, ...withoutCredentials } = env;
      const result = await runner.run(step, withoutCredentials);
      const [sent] = proxy.take();
      expect(result.code, result.stderr).toBe(0);
      expect(sent?.status).toBe(200);
      expect(sent?.headers[signedCredentials.header.toLowerCase()]).toBeUndefined();
    });
  }
});
