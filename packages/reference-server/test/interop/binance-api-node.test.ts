// binance-api-node 0.13.10 against the reference server, pointed by its `httpBase` option. Its
// errors are Errors with the API's `code`. It writes an array parameter as a comma list, which the
// live API refuses for `symbols`; the JSON text of the array, passed as a string, is what works.
import { expect, it } from "vitest";
import { startServer } from "../../src/index.js";
import { binanceApiNodeClient, clientFor } from "./clients/binance-api-node.js";
import { describeInterop } from "./suite.js";

describeInterop(binanceApiNodeClient);

it("binance-api-node: an array of symbols goes out as a comma list, refused as the live API refuses it (-1100)", async () => {
  const server = await startServer({ port: 0 });
  try {
    const api = clientFor({ url: server.url, ...server.demo });
    const error = await api.dailyStats!({ symbols: ["BTCUSDT", "ETHBTC"] as unknown as string }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: -1100, message: expect.stringContaining("parameter 'symbols'") });
  } finally {
    await server.close();
  }
});
