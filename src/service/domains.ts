/** Cookie domains compare case-insensitively and without a leading dot, as browsers treat them. */
export function normalizeCookieDomain(domain: string): string {
  return domain.trim().replace(/^\.+/, '').replace(/\.$/, '').toLowerCase();
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function isValidCookieDomain(normalized: string): boolean {
  return normalized.length > 0 && normalized.length <= 253 && normalized.split('.').every((label) => LABEL.test(label));
}
