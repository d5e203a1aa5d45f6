/**
 * The browsers and systems a device is named by, each matched by the product tokens its User-Agent carries,
 * most specific first (Edge and Opera also say Chrome, Chrome says Safari, an iPhone says Mac OS X). A device's
 * name is made of these labels only: the header is the client's to write, and the name goes into the members'
 * mail, where text an attacker chose ("Not you? Cancel at https://…") must never appear.
 */
const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+ (?:Mobile\/\w+ )?Safari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/** Real User-Agents are a few hundred characters; past this nothing more is read. */
const MAX_READ = 512;

/**
 * A User-Agent as a member recognises it, from the labels above only: "Firefox on Windows", "Safari on iPhone",
 * "Android"; undefined when it names no known browser or system (the mails then leave the device out).
 */
export function deviceName(userAgent: string | null | undefined): string | undefined {
  const agent = userAgent?.slice(0, MAX_READ);
  if (!agent) return undefined;
  const browser = BROWSERS.find(([pattern]) => pattern.test(agent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(agent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system;
}
