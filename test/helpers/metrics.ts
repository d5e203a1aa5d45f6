/**
 * Reading /metrics: the exposition text and one series' value in it. A labelled counter has no series until it is
 * first counted, so a missing series is undefined, never 0: a test can tell "not there" from "zero".
 */

/** The /metrics exposition text of an app. */
export async function scrape(baseUrl: string): Promise<string> {
  return (await fetch(`${baseUrl}/metrics`)).text();
}

/** The value of one series (`name{labels}` as written) in the exposition text; undefined when it is not there. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
