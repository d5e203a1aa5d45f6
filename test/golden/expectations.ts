/**
 * Where our answer deliberately differs from the Mono transcript: .NET fills the message placeholders
 * Mono leaves as {0}/{1} (shared/reference/asmx/README.md, "Mono vs Microsoft .NET"), and .NET refuses the
 * JSON requests Mono's script handler accepts.
 */
export const PLACEHOLDERS: Record<string, string[]> = {
  'c02-soap11-unknown-soapaction': ['SOAPAction', 'http://membership.example.org/webservices/Nope'],
  'c04-soap11-empty-soapaction': ['SOAPAction', ''],
  'c06-soap11-soapaction-no-ns': ['SOAPAction', 'AuthenticateToken'],
  'c07-soap11-soapaction-case': ['SOAPAction', 'http://membership.example.org/webservices/authenticatetoken'],
  'c19-soap11-mustunderstand-header': ['Security'],
  'd07-soap12-mustunderstand-header': ['Security'],
  'e01-httpget-missing-token': ['token'],
  'e02-httpget-missing-password': ['securityPassword'],
  'e03-httpget-no-query': ['securityPassword'],
  'e04-httpget-unknown-op': ['Nope'],
  'e07-httpget-op-case': ['authenticatetoken', 'AuthenticateToken'],
  'e09-httpget-op-trailing-slash': ['AuthenticateToken/'],
  'f01-httppost-ct-text-plain': ['text/plain'],
  'f03-httppost-xml-ct': ['text/xml; charset=utf-8'],
  'f04-httppost-missing-token': ['token'],
  'f05-httppost-unknown-op': ['Nope'],
  'f08-httppost-query-params': ['securityPassword'],
};

/** .NET's ScriptHandlerFactory refuses JSON for a class without [ScriptService]: a 500 error page. */
export const JSON_REFUSED = new Set(['c22-soap11-ct-json', 'f02-httppost-json']);

export function fillPlaceholders(text: string, values: string[]): string {
  return values.reduce((filled, value, index) => filled.split(`{${index}}`).join(value), text);
}
