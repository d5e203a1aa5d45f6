import { Option } from 'commander';
import { z } from 'zod';
import { isValidCookieDomain, normalizeCookieDomain } from '../service/domains.js';

export function jsonOption(): Option {
  return new Option('--json', 'print one JSON document on stdout');
}

/** Validation messages name the argument or option, because handleError prints only the message. */
export function required(name: string) {
  return z.string().trim().min(1, `${name} must not be empty`);
}

export const optionalText = z.string().trim().optional();

/** Commander's parser for an option that may be given more than once: its values in order. */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export const json = z.boolean().default(false);

export function emailOption(name: string) {
  return z.string().trim().pipe(z.email(`${name} must be an email address`)).optional();
}

export function cookieDomain(name: string) {
  return required(name).refine((v) => isValidCookieDomain(normalizeCookieDomain(v)), `${name} must be a domain name such as example.com`);
}
