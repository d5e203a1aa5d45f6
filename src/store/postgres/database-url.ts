/**
 * Where a postgres:// URL points, as host:port/database, for messages and logs: never its user name or
 * password, nor its query string (which may carry a password or key file too).
 */
export function describeDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'the configured DATABASE_URL (not a valid URL)';
  }
  const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
  const port = parsed.port || parsed.searchParams.get('port') || '5432';
  const database = safeDecode(parsed.pathname.slice(1));
  return database ? `${host}:${port}/${database}` : `${host}:${port}`;
}

/**
 * Why a connection failed, in one line. Node reports a refused connection to a name with several addresses
 * (localhost: ::1 and 127.0.0.1) as an AggregateError without a message of its own.
 */
export function connectionFailureReason(error: unknown): string {
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    return [...new Set(errors.map(connectionFailureReason))].join('; ');
  }
  if (error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && message) return message;
    if (typeof code === 'string' && code) return code;
  }
  return String(error);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
