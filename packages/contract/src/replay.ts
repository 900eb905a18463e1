/**
 * `marketapi-contract replay RESULT.json N`: re-sends failure N of a JSON result (numbered as the
 * text report numbers them), re-signed with a fresh timestamp when it was signed, prints what came
 * back and shell lines that send the same request with curl, signing it afresh when they run. Secrets never go into the result file: the
 * key and secret come from --api-key/--api-secret or MARKETAPI_API_KEY/MARKETAPI_API_SECRET.
 */
import { readFileSync } from "node:fs";
import { loadOpenApi } from "@marketapi/spec";
import { UsageError } from "./core/errors.js";
import { buildContractModel } from "./core/operations.js";
import { hmacHex } from "./http/signing.js";
import { requestScript, sequenceScript } from "./replay-script.js";
import type { ContractResult, Failure } from "./result.js";

const SIGNATURE = "signature";
const TIMESTAMP = "timestamp";
const KEY_HEADER = "x-mbx-apikey";

/** Failure N (1-based) in the order the text report prints them. */
export function failureNumber(result: ContractResult, n: number): Failure {
  const failures = result.cells.filter((c) => c.status === "failed").flatMap((c) => c.failures);
  const failure = failures[n - 1];
  if (!failure)
    throw new UsageError(`the result holds ${failures.length} failure(s); there is no failure ${n}`);
  if (!failure.exchange) throw new UsageError(`failure ${n} has no recorded request to replay`);
  return failure;
}

export interface Replayable {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The recorded request, re-signed with a fresh timestamp where it carried a signature. */
export function resignRequest(
  failure: Failure,
  credentials: { apiKey?: string | undefined; apiSecret?: string | undefined },
  now: number,
): Replayable {
  const recorded = failure.exchange!.request;
  const url = new URL(recorded.url);
  const query = new URLSearchParams(url.search);
  const body = recorded.body === undefined ? undefined : new URLSearchParams(recorded.body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(recorded.headers)) {
    if (name.toLowerCase() !== KEY_HEADER) headers[name] = value;
  }
  const hadKey = Object.keys(recorded.headers).some((n) => n.toLowerCase() === KEY_HEADER);
  if (hadKey) {
    if (!credentials.apiKey)
      throw new UsageError("the request sent an API key: give --api-key (or MARKETAPI_API_KEY)");
    headers["X-MBX-APIKEY"] = credentials.apiKey;
  }
  const carrier = body?.has(SIGNATURE) ? body : query.has(SIGNATURE) ? query : undefined;
  if (carrier) {
    if (!credentials.apiSecret)
      throw new UsageError(
        "the request was signed: give --api-secret (or MARKETAPI_API_SECRET) to re-sign it",
      );
    carrier.delete(SIGNATURE);
    const stamped = body?.has(TIMESTAMP) ? body : query;
    stamped.set(TIMESTAMP, String(now));
    carrier.set(SIGNATURE, hmacHex(credentials.apiSecret, query.toString(), body?.toString() ?? ""));
  }
  url.search = query.toString();
  return {
    method: recorded.method,
    url: url.toString(),
    headers,
    ...(body ? { body: body.toString() } : {}),
  };
}

export interface ReplayOutcome {
  failure: Failure;
  request: Replayable;
  status: number;
  body: string;
  /** Shell lines that send the same request, signing it when they run. */
  script: string[];
}

function readResult(resultFile: string): ContractResult {
  try {
    return JSON.parse(readFileSync(resultFile, "utf8")) as ContractResult;
  } catch (error) {
    throw new UsageError(
      `cannot read ${resultFile} as a JSON result (marketapi-contract --json): ${(error as Error).message}`,
    );
  }
}

/**
 * A failure of the stateful exploration, as the script of its minimal sequence (not sent: it
 * changes the account's orders; run it to reproduce). `base` overrides the recorded base URL.
 */
export function replaySequence(resultFile: string, n: number, base?: string): string | undefined {
  const result = readResult(resultFile);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`the failure number must be 1 or more, got ${n}`);
  const failure = failureNumber(result, n);
  if (!failure.sequence) return undefined;
  const signing = buildContractModel(loadOpenApi()).signing;
  const script = sequenceScript(failure.sequence, signing, base ?? result.target.baseUrl);
  return [
    `failure ${n}: ${failure.check} · ${failure.operationId}`,
    `  ${failure.message}`,
    "",
    `the minimal sequence (${failure.sequence.steps.length} requests) as a script; every signed request signs itself when it runs,`,
    `and later steps use the orderIds the target assigns (the run reproduces it too: --seed ${result.seed}):`,
    "",
    script,
  ].join("\n");
}

export async function replay(
  resultFile: string,
  n: number,
  credentials: { apiKey?: string | undefined; apiSecret?: string | undefined },
): Promise<ReplayOutcome> {
  const result = readResult(resultFile);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`the failure number must be 1 or more, got ${n}`);
  const failure = failureNumber(result, n);
  const request = resignRequest(failure, credentials, Date.now());
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const script = requestScript(request, buildContractModel(loadOpenApi()).signing);
  return { failure, request, status: response.status, body: await response.text(), script };
}

/** `marketapi-contract replay RESULT.json N [--api-key K] [--api-secret S]`. */
export async function replayCommand(argv: readonly string[]): Promise<string> {
  const positional: string[] = [];
  const credentials: { apiKey?: string | undefined; apiSecret?: string | undefined } = {
    apiKey: process.env.MARKETAPI_API_KEY,
    apiSecret: process.env.MARKETAPI_API_SECRET,
  };
  let base: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--base-url") base = argv[++i];
    else if (arg === "--api-key") credentials.apiKey = argv[++i];
    else if (arg === "--api-secret") credentials.apiSecret = argv[++i];
    else positional.push(arg);
  }
  if (positional.length !== 2)
    throw new UsageError(
      "usage: marketapi-contract replay RESULT.json N [--api-key KEY] [--api-secret SECRET] [--base-url URL]",
    );
  const script = replaySequence(positional[0]!, Number(positional[1]), base);
  if (script !== undefined) return script;
  const outcome = await replay(positional[0]!, Number(positional[1]), credentials);
  return [
    `failure ${positional[1]}: ${outcome.failure.check} · ${outcome.failure.operationId}`,
    `  ${outcome.failure.message}`,
    `re-sent${outcome.request.url.includes("signature=") || outcome.request.body?.includes("signature=") ? " (re-signed with a fresh timestamp)" : ""}: ${outcome.request.method} ${outcome.request.url.replace(/signature=[0-9a-f]+/, "signature=…")}`,
    `answer: ${outcome.status} ${outcome.body.slice(0, 500)}`,
    "",
    outcome.script.some((line) => line.startsWith("sign()"))
      ? "the same request with curl, signed afresh when it runs (needs openssl and sed; MARKETAPI_API_KEY and MARKETAPI_API_SECRET in the environment):"
      : "the same request with curl:",
    ...outcome.script.map((line) => `  ${line}`),
    "",
  ].join("\n");
}
