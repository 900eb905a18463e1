// @binance/spot 32.0.4, Binance's current modular connector, against the reference server.
// Pointed by `configurationRestAPI.basePath`; its defaults (1000 ms timeout, 3 retries with a 1 s
// backoff) are replaced by a long timeout and no retries, so a loaded machine cannot fail it.
import { binanceSpotClient } from "./clients/binance-spot.js";
import { describeInterop } from "./suite.js";

describeInterop(binanceSpotClient);
