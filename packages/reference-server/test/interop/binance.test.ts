// binance 3.6.5 (tiagosiebler's SDK), MainClient, against the reference server. Pointed by its
// `baseUrl` option with `disableTimeSync` (its time sync would call getServerTime, which goes to
// the production host whatever `baseUrl` says: a bug of the client, so the suite never calls
// getServerTime and reads the time with the client's generic `get` instead). Its REST errors are
// plain objects `{ code, message, body, ... }`.
import { binanceClient } from "./clients/binance.js";
import { describeInterop } from "./suite.js";

describeInterop(binanceClient);
