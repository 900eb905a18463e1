// @binance/connector 3.6.1 (Binance's older official connector) through the same calls as the
// six clients of real-clients.md; test/interop.test.ts keeps its raw wire checks.
import { connectorClient } from "./clients/connector.js";
import { describeInterop } from "./suite.js";

describeInterop(connectorClient);
