/** Runs the tester against the reference server behind a fault-injecting proxy. */
import { CHECKS } from "../../src/checks/index.js";
import { type CheckName, type ContractOptions, type ContractResult, runContract } from "../../src/index.js";
import { type Fault, startFaultProxy } from "./fault-proxy.js";
import { startReferenceServer } from "./server.js";

export interface MutationOutcome {
  fault: string;
  caught: boolean;
  /** Checks that failed (any of them). */
  failedChecks: string[];
  exitCode: number;
  result: ContractResult;
}

export async function runAgainstFault(
  fault: Fault | undefined,
  options: {
    seed?: number;
    timeoutMs?: number;
    spec?: ContractOptions["spec"];
    only?: readonly CheckName[];
  } = {},
): Promise<MutationOutcome> {
  const server = await startReferenceServer();
  const proxy = await startFaultProxy(server.url, fault);
  try {
    const result = await runContract({
      baseUrl: proxy.url,
      apiKey: server.credentials.apiKey,
      apiSecret: server.credentials.apiSecret,
      allowTrading: true,
      referenceExtras: true,
      seed: options.seed ?? 7,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.spec ? { spec: options.spec } : {}),
      ...(options.only ? { only: [...options.only] } : {}),
    });
    const failedChecks: string[] = [
      ...new Set(result.cells.filter((c) => c.status === "failed").map((c) => c.check)),
    ];
    const caught =
      fault !== undefined && result.exitCode === 1 && fault.caughtBy.some((c) => failedChecks.includes(c));
    return { fault: fault?.name ?? "(none)", caught, failedChecks, exitCode: result.exitCode, result };
  } finally {
    await proxy.close();
    await server.close();
  }
}

/** The checks that name `fault` as one they are seen to catch (ContractCheck.seenToCatch). */
export function claimedBy(fault: string): string[] {
  return CHECKS.filter((check) => check.seenToCatch.includes(fault)).map((check) => check.name);
}

/** The checks that claim to catch the outcome's fault but did not fail on it. */
export function unseenCatches(outcome: MutationOutcome): string[] {
  return claimedBy(outcome.fault).filter((check) => !outcome.failedChecks.includes(check));
}
