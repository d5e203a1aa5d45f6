/**
 * A name as ASMX writes it into a WSDL: XmlConvert.EncodeLocalName, which spells each character an XML name
 * cannot hold as _xHHHH_ ("Authentication Web Service" → Authentication_x0020_Web_x0020_Service). An
 * underscore that would read as the start of such an escape is escaped itself, as .NET does.
 */
export function encodeXmlName(name: string): string {
  const chars = [...name];
  return chars
    .map((char, index) => {
      const allowed = index === 0 ? /[A-Za-z_]/ : /[A-Za-z0-9_.-]/;
      const looksEscaped = char === '_' && /^x[0-9A-Fa-f]{4}_/.test(chars.slice(index + 1, index + 7).join(''));
      return allowed.test(char) && !looksEscaped ? char : `_x${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}_`;
    })
    .join('');
}
