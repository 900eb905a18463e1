/**
 * The new-order answer written straight to JSON text: the bytes `JSON.stringify` gives for
 * `shapeNewOrderResponse(full, respType)` (same keys, same order, same escaping), without building
 * the shaped object or walking it. Every signed order is answered this way, so this is hot;
 * test/order-json.test.ts holds it to JSON.stringify over every order type, answer type and
 * optional field.
 */
import type { FillResponse, FullResponse, NewOrderRespType } from "../engine/index.js";

/** Printable ASCII without `"` and `\`: such text is its own JSON string body, one byte per char. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** The JSON text and its UTF-8 length. */
export interface OrderJson {
  readonly text: string;
  readonly byteLength: number;
}

/** The answer of POST /api/v3/order for `respType`, as JSON text. */
export function newOrderJson(full: FullResponse, respType: NewOrderRespType): OrderJson {
  const writer = new Writer();
  const head =
    `{"symbol":${writer.string(full.symbol)},"orderId":${number(full.orderId)},` +
    `"orderListId":${number(full.orderListId)},"clientOrderId":${writer.string(full.clientOrderId)},` +
    `"transactTime":${number(full.transactTime)}`;
  if (respType === "ACK") return writer.done(`${head}}`);
  // Amounts are the engine's fixed-decimal text (digits, ".", "-") and the enums its own words:
  // plain by construction, so written as they are. Text from elsewhere (the symbol's and asset's
  // names, client order ids) goes through `writer.string`.
  let text =
    `${head},"price":"${full.price}","origQty":"${full.origQty}","executedQty":"${full.executedQty}",` +
    `"origQuoteOrderQty":"${full.origQuoteOrderQty}","cummulativeQuoteQty":"${full.cummulativeQuoteQty}",` +
    `"status":"${full.status}","timeInForce":"${full.timeInForce}","type":"${full.type}",` +
    `"side":"${full.side}","workingTime":${number(full.workingTime)},` +
    `"selfTradePreventionMode":"${full.selfTradePreventionMode}"`;
  // The optional fields, in the order views.ts adds them (absent ones are left out, as by JSON).
  if (full.stopPrice !== undefined) text += `,"stopPrice":"${full.stopPrice}"`;
  if (full.icebergQty !== undefined) text += `,"icebergQty":"${full.icebergQty}"`;
  if (full.trailingDelta !== undefined) text += `,"trailingDelta":${number(full.trailingDelta)}`;
  if (full.trailingTime !== undefined) text += `,"trailingTime":${number(full.trailingTime)}`;
  if (full.strategyId !== undefined) text += `,"strategyId":${number(full.strategyId)}`;
  if (full.strategyType !== undefined) text += `,"strategyType":${number(full.strategyType)}`;
  if (respType === "RESULT") return writer.done(`${text}}`);
  return writer.done(`${text},"fills":[${fillsJson(writer, full.fills)}]}`);
}

function fillsJson(writer: Writer, fills: readonly FillResponse[]): string {
  let text = "";
  for (let i = 0; i < fills.length; i += 1) {
    const fill = fills[i] as FillResponse;
    text +=
      `${i === 0 ? "" : ","}{"price":"${fill.price}","qty":"${fill.qty}","commission":"${fill.commission}",` +
      `"commissionAsset":${writer.string(fill.commissionAsset)},"tradeId":${number(fill.tradeId)}}`;
  }
  return text;
}

/** Strings as JSON.stringify writes them; remembers whether all of them were plain ASCII. */
class Writer {
  private ascii = true;

  string(value: string): string {
    if (PLAIN.test(value)) return `"${value}"`;
    this.ascii = false;
    return JSON.stringify(value);
  }

  done(text: string): OrderJson {
    return { text, byteLength: this.ascii ? text.length : Buffer.byteLength(text) };
  }
}

/** A number as JSON.stringify writes it (non-finite numbers become null). */
function number(value: number): string {
  return Number.isFinite(value) ? `${value}` : "null";
}
