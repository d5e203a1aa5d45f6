// @ts-check
/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and sums the self time of each function, keyed by its name and
 * where it is defined (url:line), and of each package or source folder, so that a developer sees what costs.
 * `node scripts/bench/profile.mjs file.cpuprofile [count]` prints the summary of a profile written earlier.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT } from './service.mjs';

/**
 * @typedef {object} ProfileNode
 * @property {number} id
 * @property {{ functionName: string, url: string, lineNumber: number, columnNumber: number }} callFrame
 */

/**
 * @typedef {object} SelfTime
 * @property {string} name the function name, or (anonymous)
 * @property {string} where url:line, relative to the repository where it can be
 * @property {number} ms
 * @property {number} share of the busy time (everything but (idle))
 */

/**
 * @typedef {object} ProfileSummary
 * @property {number} totalMs the profile's length
 * @property {number} idleMs time the process waited for work
 * @property {number} busyMs totalMs - idleMs
 * @property {SelfTime[]} functions by self time, largest first, (idle) left out
 * @property {Array<{ area: string, ms: number, share: number }>} areas the same, summed per package or folder
 */

const rootUrl = pathToFileURL(ROOT).href;

/** @param {string} url */
function shortUrl(url) {
  if (url.startsWith(rootUrl)) return url.slice(rootUrl.length);
  if (url.startsWith('file://')) return fileURLToPath(url);
  return url;
}

/** Where a function lives, coarsely: a package, a folder of the service's dist/, Node itself, or V8. */
function areaOf(/** @type {string} */ url, /** @type {string} */ name) {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const short = shortUrl(url);
  const modules = short.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const parts = short.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? short);
  }
  if (short.startsWith('node:')) return `node:${short.slice(5).split('/')[0] === 'internal' ? 'internal' : short.slice(5)}`;
  if (short.startsWith('dist/')) return short.split('/').slice(0, -1).join('/') || short;
  return short;
}

/**
 * @param {string} file a .cpuprofile
 * @returns {ProfileSummary}
 */
export function summarizeProfile(file) {
  /** @type {{ nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }} */
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  /** @type {Map<number, ProfileNode>} */
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  /** @type {Map<string, SelfTime>} */
  const functions = new Map();
  /** @type {Map<string, number>} */
  const areas = new Map();
  let idleMicros = 0;
  let totalMicros = 0;
  // timeDeltas[i] is the time between sample i-1 and sample i: the time sample i stands for is the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i] ?? -1);
    const micros = profile.timeDeltas[i + 1] ?? 0;
    totalMicros += micros;
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    if (name === '(idle)') {
      idleMicros += micros;
      continue;
    }
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : name.startsWith('(') ? '' : '(native)';
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { name, where, ms: 0, share: 0 };
    entry.ms += micros / 1000;
    functions.set(key, entry);
    const area = areaOf(url, name);
    areas.set(area, (areas.get(area) ?? 0) + micros / 1000);
  }
  const busyMs = (totalMicros - idleMicros) / 1000;
  const ranked = [...functions.values()].sort((a, b) => b.ms - a.ms);
  for (const entry of ranked) entry.share = busyMs > 0 ? entry.ms / busyMs : 0;
  return {
    totalMs: totalMicros / 1000,
    idleMs: idleMicros / 1000,
    busyMs,
    functions: ranked,
    areas: [...areas.entries()].map(([area, ms]) => ({ area, ms, share: busyMs > 0 ? ms / busyMs : 0 })).sort((a, b) => b.ms - a.ms),
  };
}

/** @param {ProfileSummary} summary @param {number} count @returns {string} */
export function formatProfile(summary, count = 15) {
  const pct = (/** @type {number} */ share) => `${(share * 100).toFixed(1)}%`;
  const lines = [
    `profile: ${(summary.totalMs / 1000).toFixed(1)} s, busy ${(summary.busyMs / 1000).toFixed(1)} s, idle ${(summary.idleMs / 1000).toFixed(1)} s`,
    '',
    `top ${count} functions by self time (share of busy time):`,
    ...summary.functions.slice(0, count).map((f, i) => `${String(i + 1).padStart(3)}. ${f.ms.toFixed(0).padStart(7)} ms ${pct(f.share).padStart(6)}  ${f.name}${f.where ? `  ${f.where}` : ''}`),
    '',
    'self time by package or folder:',
    ...summary.areas.slice(0, 12).map((a) => `     ${a.ms.toFixed(0).padStart(7)} ms ${pct(a.share).padStart(6)}  ${a.area}`),
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, count] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node scripts/bench/profile.mjs file.cpuprofile [count]');
    process.exit(2);
  }
  console.log(formatProfile(summarizeProfile(file), Number(count) || 15));
}
