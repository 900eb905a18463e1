// ccxt 4.5.84 (class `binance`) against the reference server. Pointed as real-clients.md says:
// `urls.api.public` and `urls.api.private` set to the server, markets limited to spot, currencies
// and margins not fetched, so that it never calls the real hosts.
import { ccxtClient } from "./clients/ccxt.js";
import { describeInterop } from "./suite.js";

describeInterop(ccxtClient);
