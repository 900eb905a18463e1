/**
 * A server clock that never moves, for tests that count requests or orders against a small rate
 * limit: on the real clock a window (10 s, a minute) can restart between two of the test's
 * requests, and its counts with it, whenever a loaded machine spreads the requests across the edge.
 * Signed requests under it carry `timestamp: STILL_TIME`.
 */
export const STILL_TIME = Date.UTC(2024, 0, 15, 10, 0, 30);
export const stillClock = (): number => STILL_TIME;
