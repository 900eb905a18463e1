/**
 * The target of a run: the embedded reference server, --base-url, or an Endpoint record, with
 * the credentials for it; and the reference server's documented widenings, when it is the target.
 */

import { UsageError } from "../core/errors.js";
import type { ContractModel } from "../core/operations.js";
import { type EmbeddedServer, startEmbeddedServer } from "../embedded.js";
import { type EndpointTarget, endpointTarget, loadEndpointFile } from "../endpoint.js";
import type { Credentials } from "../http/request.js";
import type { RunContext } from "../kit/context.js";
import type { ContractResult } from "../result.js";
import type { ContractOptions } from "./contract-options.js";

export interface Target {
  baseUrl: string;
  kind: ContractResult["target"]["kind"];
  label?: string;
  headers: Record<string, string>;
  trading: boolean;
  credentials?: Credentials;
  /** A second account on the same target, when the user gave one (or the embedded server's). */
  second?: Credentials;
  embedded?: EmbeddedServer;
}

function secondFrom(options: ContractOptions): Credentials | undefined {
  return options.secondApiKey && options.secondApiSecret
    ? { apiKey: options.secondApiKey, apiSecret: options.secondApiSecret }
    : undefined;
}

function credentialsFrom(
  options: ContractOptions,
  endpoint: EndpointTarget | undefined,
  model: ContractModel,
): Credentials | undefined {
  let apiKey = options.apiKey;
  if (endpoint) {
    const keyHeader = Object.keys(endpoint.headers).find(
      (n) => n.toLowerCase() === model.signing.apiKeyHeader.toLowerCase(),
    );
    if (keyHeader) {
      apiKey ??= endpoint.headers[keyHeader];
      delete endpoint.headers[keyHeader];
    }
  }
  if (options.apiSecret !== undefined && apiKey === undefined) {
    throw new UsageError("--api-secret needs --api-key (or an X-MBX-APIKEY header in the Endpoint record)");
  }
  if (apiKey === undefined) return undefined;
  // With a key but no secret, market_data operations still run; signed ones are skipped.
  return { apiKey, apiSecret: options.apiSecret ?? "" };
}

export async function resolveTarget(options: ContractOptions, model: ContractModel): Promise<Target> {
  const now = options.now?.() ?? Date.now();
  if (options.endpoint !== undefined) {
    if (options.baseUrl !== undefined) throw new UsageError("give either --base-url or --endpoint, not both");
    const endpoint =
      typeof options.endpoint === "string"
        ? loadEndpointFile(options.endpoint, now)
        : endpointTarget(options.endpoint, now);
    const credentials = credentialsFrom(options, endpoint, model);
    return {
      baseUrl: endpoint.baseUrl,
      kind: "endpoint",
      label: `${endpoint.label} (status ${endpoint.status})`,
      headers: endpoint.headers,
      trading: endpoint.trading || options.allowTrading === true,
      ...(credentials ? { credentials } : {}),
      ...(secondFrom(options) ? { second: secondFrom(options)! } : {}),
    };
  }
  if (options.baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new UsageError(`--base-url ${JSON.stringify(options.baseUrl)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new UsageError(`--base-url must be an http(s) URL, got ${options.baseUrl}`);
    }
    const credentials = credentialsFrom(options, undefined, model);
    return {
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      kind: "base-url",
      headers: {},
      trading: options.allowTrading === true,
      ...(credentials ? { credentials } : {}),
      ...(secondFrom(options) ? { second: secondFrom(options)! } : {}),
    };
  }
  const embedded = await startEmbeddedServer();
  return {
    baseUrl: embedded.url.replace(/\/+$/, ""),
    kind: "embedded",
    label: "reference server (embedded, demo account)",
    headers: {},
    trading: true,
    credentials:
      options.apiKey && options.apiSecret
        ? { apiKey: options.apiKey, apiSecret: options.apiSecret }
        : embedded.credentials,
    second: secondFrom(options) ?? embedded.second,
    embedded,
  };
}

/** The reference server's documented widenings of declared parameters (loaded only when asked). */
export async function referenceTolerance(): Promise<NonNullable<RunContext["tolerates"]>> {
  const { specWidening } = await import("@marketapi/reference-server");
  return (operationId, parameter, text) => {
    const widening = specWidening(operationId, parameter, text);
    return widening && `the reference server accepts it on purpose (${widening})`;
  };
}
