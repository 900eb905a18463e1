/**
 * What an order shows of what was sent to place it: the parameters new_order took, each as the
 * field every view of the order names it by (the order's answers and reads: `quantity` as
 * `origQty`, `quoteOrderQty` as `origQuoteOrderQty`, `newClientOrderId` as `clientOrderId`).
 * Decimals are compared by value ("60000" is "60000.00000000"). A view that shows the order's
 * state (it holds `origQty`: not an ACK) holds the field of every parameter sent: the schema's
 * conditional fields (stop price, iceberg, trailing delta) "appear when they apply". Pure.
 */
import { tryParseDec } from "../core/decimal.js";
import type { ParamList } from "../http/request.js";

type Kind = "decimal" | "text" | "integer";

/** Each new_order parameter an order's views show, the field that shows it, and how it compares. */
const ECHOED: ReadonlyArray<{ parameter: string; field: string; kind: Kind }> = [
  { parameter: "symbol", field: "symbol", kind: "text" },
  { parameter: "side", field: "side", kind: "text" },
  { parameter: "type", field: "type", kind: "text" },
  { parameter: "timeInForce", field: "timeInForce", kind: "text" },
  { parameter: "price", field: "price", kind: "decimal" },
  { parameter: "quantity", field: "origQty", kind: "decimal" },
  { parameter: "stopPrice", field: "stopPrice", kind: "decimal" },
  { parameter: "icebergQty", field: "icebergQty", kind: "decimal" },
  { parameter: "quoteOrderQty", field: "origQuoteOrderQty", kind: "decimal" },
  { parameter: "trailingDelta", field: "trailingDelta", kind: "integer" },
  { parameter: "newClientOrderId", field: "clientOrderId", kind: "text" },
];

/** A field every view of an order's state holds (OrderState's required `origQty`), and no ACK. */
const STATE_FIELD = "origQty";

function same(kind: Kind, parameter: string, sent: string, shown: unknown): boolean {
  // A symbol's case is symbol_case's to judge, not the echo's.
  if (parameter === "symbol") return typeof shown === "string" && shown.toUpperCase() === sent.toUpperCase();
  if (kind === "text") return shown === sent;
  if (kind === "integer") return String(shown) === String(Number(sent));
  const a = tryParseDec(sent);
  const b = tryParseDec(shown);
  return a !== undefined && b !== undefined && a === b;
}

/**
 * What a view of an order (`shown`, an answer or a read's item) shows other than what was sent to
 * place it (`sent`, new_order's parameters); `where` names the view. A parameter sent twice is not
 * judged (the server took one of the two).
 */
export function echoProblems(
  sent: ParamList,
  shown: Readonly<Record<string, unknown>>,
  where: string,
): string[] {
  const problems: string[] = [];
  for (const { parameter, field, kind } of ECHOED) {
    const values = sent.filter(([name]) => name === parameter).map(([, value]) => value);
    if (values.length !== 1) continue;
    const value = values[0] as string;
    if (!(field in shown)) {
      if (STATE_FIELD in shown)
        problems.push(
          `${where} leaves out ${field}; the order was placed with ${parameter}=${value} (an order's conditional fields appear where they apply)`,
        );
      continue;
    }
    if (!same(kind, parameter, value, shown[field]))
      problems.push(
        `${where} shows ${field} ${JSON.stringify(shown[field])}; the order was placed with ${parameter}=${value}`,
      );
  }
  return problems;
}

/** What an order shows where nothing was sent: the symbol's defaults the views must report. */
export interface UnsentDefaults {
  /** exchangeInfo's defaultSelfTradePreventionMode of the order's symbol, when announced. */
  selfTradePreventionMode: string | undefined;
}

/**
 * The decimal fields an order shows as zero when their parameter was not sent (the live API's
 * "0.00000000"): every decimal it echoes but the quantity, which a quote budget sets, and the stop
 * price, which a trailing stop may set.
 */
const ZERO_WHEN_UNSENT = ECHOED.filter(
  ({ parameter, kind }) => kind === "decimal" && parameter !== "quantity" && parameter !== "stopPrice",
);

/**
 * What a view of an order shows, where nothing was sent, other than what it means: a price, an
 * iceberg quantity or a quote budget not sent is zero (the live API's "0.00000000"), and so is a
 * stop price where neither it nor a trailing delta was sent; the self-trade prevention mode not
 * sent is the symbol's default; the run places no order list, so `orderListId` is -1 ("-1 unless
 * the order belongs to an order list"); an order placed without a stop works from the start, so
 * `workingTime` is not -1 ("-1 while it is not working (a stop order not yet triggered)"). Pure.
 */
export function unsentProblems(
  sent: ParamList,
  shown: Readonly<Record<string, unknown>>,
  where: string,
  defaults: UnsentDefaults,
): string[] {
  const problems: string[] = [];
  const wasSent = (parameter: string) => sent.some(([name]) => name === parameter);
  const stopless = !wasSent("stopPrice") && !wasSent("trailingDelta");
  const zeroes = [
    ...ZERO_WHEN_UNSENT,
    ...(stopless ? ECHOED.filter((e) => e.parameter === "stopPrice") : []),
  ];
  for (const { parameter, field } of zeroes) {
    if (wasSent(parameter) || !(field in shown)) continue;
    const value = tryParseDec(shown[field]);
    if (value !== undefined && value !== 0n)
      problems.push(
        `${where} shows ${field} ${JSON.stringify(shown[field])}; no ${parameter} was sent (zero)`,
      );
  }
  const mode = defaults.selfTradePreventionMode;
  if (!wasSent("selfTradePreventionMode") && mode !== undefined && "selfTradePreventionMode" in shown)
    if (shown.selfTradePreventionMode !== mode)
      problems.push(
        `${where} shows selfTradePreventionMode ${JSON.stringify(shown.selfTradePreventionMode)}; none was sent, and the symbol's default is ${mode}`,
      );
  if ("orderListId" in shown && shown.orderListId !== -1)
    problems.push(
      `${where} shows orderListId ${JSON.stringify(shown.orderListId)}; the order is in no list (-1)`,
    );
  if (stopless && shown.workingTime === -1)
    problems.push(
      `${where} shows workingTime -1 (not working); an order without a stop works from its placement`,
    );
  return problems;
}
