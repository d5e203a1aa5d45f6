/**
 * Why an inbound message was refused: a short code for the log and the metrics, and a sentence for the log and
 * the error page. Neither ever holds the message's XML or a value from it (a NameID, a RelayState).
 */
export type InboundRefusalCode = 'encoding' | 'relay-state' | 'xml' | 'message' | 'issuer' | 'signature';

export interface InboundRefusal {
  code: InboundRefusalCode;
  text: string;
}

/** Thrown inside the reader, turned into its { ok: false } answer at the entry point. */
export class Refused extends Error {
  constructor(readonly refusal: InboundRefusal) {
    super(refusal.text);
  }
}

export function refuse(code: InboundRefusalCode, text: string): never {
  throw new Refused({ code, text });
}
