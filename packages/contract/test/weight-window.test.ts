// rate_counters' judgement of the weight window's restart: given/want over the run's answers, and
// a focused run that spans a minute's boundary (the server's clock set a few seconds before one)
// against the reference server as it is and behind a counter that never restarts.
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { afterAll, describe, expect, it } from "vitest";
import { epochsOf, judgeRestarts, type WeightSample, weighedShort } from "../src/checks/rate-counters.js";
import { reportText } from "../src/report/text.js";
import { startFaultProxy } from "./support/fault-proxy.js";
import { windowRestartFault } from "./support/load-faults.js";
import { runContract } from "./support/run.js";

const MINUTE = 60_000;
/** Sequential answers at the given times (ms from 0, each 10 ms long) with their counters and weights. */
const answers = (...rows: Array<[at: number, used: number | undefined, weight?: number, status?: number]>) =>
  rows.map(
    ([at, used, weight = 1, status = 200]): WeightSample => ({
      sentAt: at,
      answeredAt: at + 10,
      status,
      used,
      weight,
    }),
  );

describe("judgeRestarts", () => {
  const cases: Array<{
    given: string;
    samples: WeightSample[];
    want: Array<{ kind: string; why?: RegExp }>;
  }> = [
    {
      given: "the count starts again after the boundary",
      samples: answers([57_000, 40], [57_500, 41], [60_500, 1], [62_500, 2]),
      want: [{ kind: "restarted" }],
    },
    {
      given: "the count goes on by each weight across the boundary",
      samples: answers([57_000, 40], [57_500, 45, 5], [60_500, 46], [62_500, 48, 2]),
      want: [{ kind: "went on" }],
    },
    {
      given: "more than the weights: another client on the address",
      samples: answers([57_000, 40], [60_500, 60], [62_500, 61]),
      want: [{ kind: "not judged", why: /grew by more than the weights/ }],
    },
    {
      given: "two requests in flight together across the boundary",
      samples: [
        ...answers([57_000, 40]),
        { sentAt: 59_000, answeredAt: 61_000, status: 200, used: 41, weight: 1 },
        { sentAt: 60_000, answeredAt: 60_010, status: 200, used: 42, weight: 1 },
        ...answers([62_500, 43]),
      ],
      want: [{ kind: "not judged", why: /in flight together/ }],
    },
    {
      given: "a 429 among them",
      samples: answers([57_000, 40], [60_500, 41, 1, 429], [62_500, 42]),
      want: [{ kind: "not judged", why: /429/ }],
    },
    {
      given: "an answer without the counter",
      samples: answers([57_000, 40], [60_500, undefined], [62_500, 42]),
      want: [{ kind: "not judged", why: /without the counter/ }],
    },
    {
      given: "nothing counted before the boundary (a restart shows that too)",
      samples: answers([57_000, 0, 0], [62_500, 1]),
      want: [{ kind: "not judged", why: /nothing counted/ }],
    },
    {
      given: "no answer well before the boundary: nothing to judge",
      samples: answers([59_500, 40], [62_500, 41]),
      want: [],
    },
    {
      given: "no request well after it",
      samples: answers([57_000, 40], [60_500, 41]),
      want: [],
    },
    {
      given: "inside one window",
      samples: answers([1_000, 1], [30_000, 2]),
      want: [],
    },
    {
      given: "two boundaries, each judged",
      samples: answers([57_000, 40], [62_500, 1], [117_000, 9], [122_500, 10]),
      want: [{ kind: "restarted" }, { kind: "went on" }],
    },
  ];
  for (const { given, samples, want } of cases) {
    it(given, () => {
      const verdicts = judgeRestarts(samples, MINUTE);
      expect(verdicts.map((v) => v.kind)).toEqual(want.map((w) => w.kind));
      for (const [i, w] of want.entries()) {
        const verdict = verdicts[i]!;
        if (w.why) expect(verdict.kind === "not judged" ? verdict.why : "").toMatch(w.why);
      }
    });
  }
});

describe("epochsOf", () => {
  const table: { given: number[]; want: Array<[number, number]> }[] = [
    { given: [], want: [] },
    { given: [0, 0, 0], want: [[0, 3]] },
    {
      given: [0, 0, 1, 1, 2],
      want: [
        [0, 2],
        [2, 4],
        [4, 5],
      ],
    },
  ];
  it.each(table)("clocks $given: stretches $want", ({ given, want }) => {
    expect(epochsOf(given.map((clock) => ({ clock }))).map(({ from, to }) => [from, to])).toEqual(want);
  });
});

describe("a focused run that spans a minute's boundary", () => {
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  /**
   * A reference server whose clock reads a few seconds before a minute's boundary now, and at
   * least 57 s ahead of this machine's: the probe's first answers, stamped before the run has read
   * the target's clock, lie across the boundary before this one by this machine's clock.
   */
  async function serverBeforeBoundary(): Promise<RunningServer> {
    const lead = 4500;
    const ahead = 57_000;
    const realNow = Date.now();
    const boundary = Math.ceil((realNow + lead + ahead) / MINUTE) * MINUTE;
    const shift = boundary - lead - realNow;
    const server = await startServer({ port: 0, host: "127.0.0.1", now: () => Date.now() + shift });
    servers.push(server);
    return server;
  }

  const run = async (server: RunningServer, baseUrl: string) =>
    runContract({
      baseUrl,
      apiKey: server.demo.apiKey,
      apiSecret: server.demo.apiSecret,
      referenceExtras: true,
      allowTrading: true,
      // The exploration's sequential requests carry the run well past the boundary, which
      // rate_counters' pairs wait for (they start clear of a window's end).
      only: ["rate_counters", "stateful_exploration"],
      exploreBudget: 80,
      seed: 1,
    });

  it("the reference server's count starts again: judged and held", async () => {
    const server = await serverBeforeBoundary();
    const result = await run(server, server.url);
    const explain = reportText(result, { color: false });
    expect(result.exitCode, explain).toBe(0);
    expect(explain).toMatch(/the weight window restarted at/);
  });

  it(`catches ${windowRestartFault().name}`, async () => {
    const server = await serverBeforeBoundary();
    const proxy = await startFaultProxy(server.url, windowRestartFault());
    try {
      const result = await run(server, proxy.url);
      const explain = reportText(result, { color: false });
      expect(
        result.cells.filter((c) => c.status === "failed").map((c) => c.check),
        explain,
      ).toContain("rate_counters");
      expect(explain).toMatch(/went on from \d+ to \d+ across the window's boundary/);
    } finally {
      await proxy.close();
    }
  });
});

describe("weighedShort", () => {
  const cases: Array<{
    given: string;
    samples: WeightSample[];
    want: Array<[index: number, growth: number]>;
  }> = [
    {
      given: "each request counted at its weight",
      samples: answers([1000, 5], [1100, 25, 20], [1200, 26]),
      want: [],
    },
    { given: "more than the weight (another client)", samples: answers([1000, 5], [1100, 40, 20]), want: [] },
    {
      given: "a request counted below its weight",
      samples: answers([1000, 5], [1100, 10, 20], [1200, 11]),
      want: [[1, 5]],
    },
    {
      given: "a refusal is not judged, but its counter is the next step's start",
      samples: answers([1000, 5], [1100, 6, 20, 400], [1200, 7, 1]),
      want: [],
    },
    {
      given: "requests in flight together are not judged",
      samples: [
        { sentAt: 1000, answeredAt: 1200, status: 200, used: 30, weight: 1 },
        { sentAt: 1100, answeredAt: 1150, status: 200, used: 20, weight: 20 },
      ],
      want: [],
    },
    {
      given: "sent in the millisecond the one before was answered (it may have arrived first)",
      samples: [
        { sentAt: 1000, answeredAt: 1010, status: 200, used: 30, weight: 2 },
        { sentAt: 1010, answeredAt: 1020, status: 200, used: 28, weight: 5 },
      ],
      want: [],
    },
    { given: "across a window's boundary", samples: answers([59_500, 50], [60_900, 20, 20]), want: [] },
    { given: "near a boundary", samples: answers([58_000, 50], [59_300, 55, 20]), want: [] },
    { given: "an answer without the counter", samples: answers([1000, undefined], [1100, 3, 20]), want: [] },
  ];
  it.each(cases)("$given", ({ samples, want }) => {
    expect(weighedShort(samples, MINUTE).map(({ index, growth }) => [index, growth])).toEqual(want);
  });
});
