/**
 * An address as the log may show it: the first character of the local part and the domain
 * (ada.lovelace@example.org → a…@example.org), enough to tell which domain's server refuses, not who.
 */
export function maskedAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1) return '…';
  return `${String.fromCodePoint(address.codePointAt(0) ?? 0)}…${address.slice(at)}`;
}
