const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses "90", "90s", "30m", "12h" or "7d" into whole seconds; null when it is not one of those. */
export function parseDurationSeconds(text: string): number | null {
  const match = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(text);
  if (!match) return null;
  const unit = (match[2] ?? '').toLowerCase() || 's';
  return Number(match[1]) * (UNIT_SECONDS[unit] ?? 1);
}
