/** LOG_FORMAT: readable lines on a terminal and JSON elsewhere (auto), or either one always. */
export type LogFormatSetting = 'auto' | 'json' | 'pretty';

/** How the lines are written: JSON, or readable lines, coloured or not. */
export type LineStyle = { readonly format: 'json' } | { readonly format: 'pretty'; readonly color: boolean };

export const JSON_LINES: LineStyle = Object.freeze({ format: 'json' });

/**
 * The style for a destination: `auto` writes readable lines when it is a terminal, JSON otherwise (a pipe, a
 * file, a log shipper). Colour only on a terminal, and never with NO_COLOR (no-color.org).
 */
export function lineStyle(setting: LogFormatSetting, destination: { readonly isTTY?: boolean }, noColor: boolean): LineStyle {
  const terminal = destination.isTTY === true;
  if (setting === 'json' || (setting === 'auto' && !terminal)) return JSON_LINES;
  return Object.freeze({ format: 'pretty', color: terminal && !noColor });
}
