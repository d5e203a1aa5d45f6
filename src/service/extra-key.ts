/**
 * The keys members' free-form attributes may have: usable as a JSON field and as an XML attribute name, where
 * the result formats put them. The configuration checks the attr:<key> fields it may choose against it too.
 */
export const EXTRA_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * A member's extra attribute by its key, only as the member's own: a key such as `constructor` or `toString`,
 * valid as EXTRA_KEY, names nothing inherited from Object's prototype.
 */
export function extraValue(extra: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return extra !== undefined && Object.hasOwn(extra, key) ? extra[key] : undefined;
}
