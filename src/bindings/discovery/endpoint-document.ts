/** A document prepared once per configuration; only the endpoint address varies per request. */
export interface EndpointDocument {
  render(endpoint: string): string;
}
