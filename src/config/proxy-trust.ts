import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { FALSE_WORDS, TRUE_WORDS } from './value-formats.js';

/** The proxies whose X-Forwarded-* headers are believed: none, any peer (`true`), or these addresses and ranges. */
export interface ProxyTrust {
  /** Any peer at all (TRUST_PROXY=true): the right-most X-Forwarded-For entry is the client. */
  readonly any: boolean;
  /** The setting as given, for the start-up log. */
  readonly setting: string;
  /** Whether a connection from this address (or an X-Forwarded-For entry naming it) is a trusted proxy. */
  trusts(address: string | undefined): boolean;
}

/** An IPv4 address as IPv6 (::ffff:a.b.c.d), as a dual-stack socket reports it, is the IPv4 address. */
const plainAddress = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** Whom TRUST_PROXY trusts, as parsed (`value`); `setting` is the setting as given. */
export function proxyTrust(setting: string, value: boolean | readonly string[]): ProxyTrust {
  if (typeof value === 'boolean') return Object.freeze({ any: value, setting, trusts: () => value });
  const list = new BlockList();
  for (const entry of value) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return Object.freeze({
    any: false,
    setting,
    trusts: (address: string | undefined) => {
      if (address === undefined) return false;
      const plain = plainAddress(address.trim());
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
    },
  });
}

/** An address or CIDR range, IPv4 or IPv6. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** TRUST_PROXY: true, false, or the proxies' addresses and CIDR ranges, comma-separated. */
export const trustedProxies = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const word = v.toLowerCase();
    if (TRUE_WORDS.includes(word) || FALSE_WORDS.includes(word)) return TRUE_WORDS.includes(word);
    const entries = v.split(',').map((entry) => entry.trim()).filter(Boolean);
    if (entries.length > 0 && entries.every(isAddressOrRange)) return entries;
    ctx.addIssue({ code: 'custom', message: "must be true, false, or the proxies' addresses and CIDR ranges, comma-separated (10.0.0.5, 10.1.0.0/16, ::1)" });
    return z.NEVER;
  });
