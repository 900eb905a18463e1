// The target's time as the tester uses it for every timestamp and window it sends: whole
// milliseconds, whatever the clock offset (a midpoint between two readings may end in a half,
// and a window of `now - 1 h` then went out as `startTime=1795846342210.5`, refused as -1100).
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { CHECK_NAMES } from "../src/checks/index.js";
import { buildContractModel } from "../src/core/operations.js";
import { Session } from "../src/session/session.js";
import { Recorder } from "../src/session/verdicts.js";

const model = buildContractModel(loadOpenApi());

function session(): Session {
  return new Session({
    model,
    baseUrl: "http://127.0.0.1:9",
    headers: {},
    timeoutMs: 600_000, // no request is made: the session only reads its clock
    maxRequests: 1,
    recorder: new Recorder(
      CHECK_NAMES,
      model.operations.map((op) => op.operationId),
    ),
  });
}

describe("Session.now", () => {
  const table: { given: number }[] = [{ given: 0 }, { given: 0.5 }, { given: -1234.5 }, { given: 7.25 }];
  it.each(table)("with a clock offset of $given ms, is a whole number of ms", ({ given }) => {
    const target = session();
    target.clockOffsetMs = given;
    expect(Number.isInteger(target.now())).toBe(true);
  });
});
