/**
 * A price series a user provides as CSV, for the simulated market to replay: a header row naming
 * a time column (`time`, `timestamp`, `open_time` or `date`) and a price column (`price` or
 * `close`), optionally `symbol`; other columns are ignored (so a kline export works as it is).
 * Times are epoch milliseconds (microseconds from 10^14 on, as the live API reads them) or ISO 8601
 * text, strictly increasing per symbol; prices are positive decimals. Every fault is located as
 * `file (line L, column C): expected …, found …`.
 */
import { InputFault } from "@marketapi/command";

/** One symbol's prices, or every symbol's relative moves (symbol undefined). */
export interface PriceSeries {
  symbol: string | undefined;
  /** Milliseconds after the series' first row. */
  offsets: number[];
  prices: number[];
}

const TIME_COLUMNS = ["time", "timestamp", "open_time", "date"];
const PRICE_COLUMNS = ["price", "close"];
const MICROSECONDS_FROM = 1e14;
/** Rows a series may hold (a day of seconds, many times over). */
export const MAX_SERIES_ROWS = 5_000_000;

/**
 * Reads the CSV text; `source` names it in faults, `symbols` are those a `symbol` column may name.
 * Throws an InputFault at the first fault.
 */
export function parsePriceSeries(text: string, source: string, symbols: readonly string[]): PriceSeries[] {
  const lines = text.split(/\r?\n/);
  const header = splitRow(lines[0] ?? "").map((name) => name.trim().toLowerCase());
  const fault = (line: number, column: number, detail: string) =>
    new InputFault(source, detail, line, column);
  const timeAt = header.findIndex((name) => TIME_COLUMNS.includes(name));
  const priceAt = header.findIndex((name) => PRICE_COLUMNS.includes(name));
  const symbolAt = header.indexOf("symbol");
  if (timeAt < 0 || priceAt < 0) {
    throw fault(
      1,
      1,
      `expected a header row naming a time column (${TIME_COLUMNS.join(", ")}) and a price column (${PRICE_COLUMNS.join(", ")}), found ${JSON.stringify(lines[0]?.slice(0, 80) ?? "")}`,
    );
  }
  const series = new Map<string | undefined, { series: PriceSeries; start: number; last: number }>();
  let rows = 0;
  for (let i = 1; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (line.trim() === "") continue;
    rows += 1;
    if (rows > MAX_SERIES_ROWS) throw fault(i + 1, 1, `expected at most ${MAX_SERIES_ROWS} rows, found more`);
    const cells = splitRow(line);
    const column = (index: number) => 1 + cells.slice(0, index).reduce((n, cell) => n + cell.length + 1, 0);
    const cell = (index: number, what: string) => {
      const value = cells[index]?.trim();
      if (value === undefined || value === "")
        throw fault(i + 1, column(index), `expected ${what}, found nothing`);
      return value;
    };
    const time = readTime(cell(timeAt, "a time"));
    if (time === undefined) {
      throw fault(
        i + 1,
        column(timeAt),
        `expected a time (epoch milliseconds or ISO 8601), found ${JSON.stringify(cells[timeAt])}`,
      );
    }
    const priceText = cell(priceAt, "a price");
    const price = Number(priceText);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(priceText) || !(price > 0)) {
      throw fault(
        i + 1,
        column(priceAt),
        `expected a positive decimal price, found ${JSON.stringify(priceText)}`,
      );
    }
    const symbol = symbolAt < 0 ? undefined : cell(symbolAt, "a symbol");
    if (symbol !== undefined && !symbols.includes(symbol)) {
      throw fault(
        i + 1,
        column(symbolAt),
        `expected one of the server's symbols (${symbols.join(", ")}), found ${JSON.stringify(symbol)}`,
      );
    }
    let entry = series.get(symbol);
    if (!entry) {
      entry = { series: { symbol, offsets: [], prices: [] }, start: time, last: Number.NEGATIVE_INFINITY };
      series.set(symbol, entry);
    }
    if (time <= entry.last) {
      const of = symbol === undefined ? "" : ` of ${symbol}`;
      throw fault(
        i + 1,
        column(timeAt),
        `expected times${of} to increase, found ${cells[timeAt]} after a later or equal time`,
      );
    }
    entry.last = time;
    entry.series.offsets.push(time - entry.start);
    entry.series.prices.push(price);
  }
  if (series.size === 0)
    throw fault(2, 1, "expected at least one row of prices after the header, found none");
  return [...series.values()].map((entry) => entry.series);
}

/** A CSV row's cells (no quoting: the columns read are numbers, dates and symbols). */
function splitRow(line: string): string[] {
  return line.split(",").map((cell) => cell.replace(/^"(.*)"$/, "$1"));
}

function readTime(text: string): number | undefined {
  if (/^[0-9]{1,17}$/.test(text)) {
    const value = Number(text);
    return value >= MICROSECONDS_FROM ? Math.floor(value / 1000) : value;
  }
  if (
    !/^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?$/.test(
      text,
    )
  )
    return undefined;
  const zoned = /(Z|[+-][0-9]{2}:?[0-9]{2})$/.test(text) || text.length === 10 ? text : `${text}Z`;
  const time = Date.parse(zoned.replace(" ", "T"));
  return Number.isNaN(time) ? undefined : time;
}

/** The series' price at `offset` ms after its first row: linear between rows, held before and after. */
export function priceAt(series: PriceSeries, offset: number): number {
  const { offsets, prices } = series;
  if (offset <= 0) return prices[0] as number;
  const lastIndex = offsets.length - 1;
  if (offset >= (offsets[lastIndex] as number)) return prices[lastIndex] as number;
  let low = 0;
  let high = lastIndex;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if ((offsets[middle] as number) <= offset) low = middle;
    else high = middle;
  }
  const [t0, t1] = [offsets[low] as number, offsets[high] as number];
  const [p0, p1] = [prices[low] as number, prices[high] as number];
  return p0 + ((p1 - p0) * (offset - t0)) / (t1 - t0);
}
