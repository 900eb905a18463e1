// @binance/connector-typescript 0.3.16 against the reference server, pointed by its `baseURL`
// option. Its REST errors are thrown as the API's `msg` text alone (a string, no code), so the
// error checks compare the live API's message texts.
import { connectorTypescriptClient } from "./clients/connector-typescript.js";
import { describeInterop } from "./suite.js";

describeInterop(connectorTypescriptClient);
