/** Browsers by their User-Agent's product tokens, most specific first (Edge and Opera also say Chrome, Chrome says Safari). */
const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

const MAX_SHOWN = 60;

/**
 * A User-Agent string as a member recognises it: "Firefox on Windows". One that names no known browser is
 * shown cut to a readable length; none at all is "Unknown device".
 */
export function deviceName(userAgent: string | null): string {
  const agent = userAgent?.trim();
  if (!agent) return 'Unknown device';
  const browser = BROWSERS.find(([pattern]) => pattern.test(agent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(agent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  const known = browser ?? system;
  if (known) return known;
  return agent.length > MAX_SHOWN ? `${agent.slice(0, MAX_SHOWN - 1)}…` : agent;
}
