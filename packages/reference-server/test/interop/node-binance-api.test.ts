// node-binance-api 1.0.33 against the reference server, pointed by `urls.base` (which must end in
// `/api/`). Its request timeout is its recvWindow, so the suite raises recvWindow to 30 s. Its
// REST errors are Errors whose message is the answer's body text.
import { nodeBinanceApiClient } from "./clients/node-binance-api.js";
import { describeInterop } from "./suite.js";

describeInterop(nodeBinanceApiClient);
