/**
 * The keys members' free-form attributes may have: usable as a JSON field and as an XML attribute name, where
 * the result formats put them. The configuration checks the attr:<key> fields it may choose against it too.
 */
export const EXTRA_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
