import { z } from 'zod';
import {
  machineKey,
  MachineKeyError,
  type CompatibilityMode,
  type DecryptionAlgorithm,
  type MachineKeySettings,
  type ValidationAlgorithm,
} from '../service/forms-ticket/machine-key.js';

// The membership site's Forms cookie: MACHINE_KEY_* as its web.config's <machineKey> has them, FORMS_* as its
// <forms> element. The keys' rules are the ones the service reads tickets with (machineKey()), checked once here.

export const MACHINE_KEY_VALIDATIONS = ['SHA1', 'HMACSHA256', 'HMACSHA384', 'HMACSHA512'] as const satisfies readonly ValidationAlgorithm[];
export const MACHINE_KEY_DECRYPTIONS = ['AES', '3DES'] as const satisfies readonly DecryptionAlgorithm[];
export const MACHINE_KEY_COMPATIBILITIES = ['Framework20SP1', 'Framework20SP2', 'Framework45'] as const satisfies readonly CompatibilityMode[];
/** FORMS_UNKNOWN_MEMBER: a ticket whose name no member has is not signed in, or a member of that name alone. */
export const FORMS_UNKNOWN_MEMBER_POLICIES = ['refuse', 'minimal'] as const;

/** A key as <machineKey> writes it: hex digits (the length is checked against the algorithms, with both keys). */
export const machineKeyHex = z
  .string()
  .trim()
  .regex(/^[0-9A-Fa-f]+$/, 'must be the key in hex digits, as the site\'s <machineKey> has it (AutoGenerate and IsolateApps keys cannot be shared)');

/** The site's <machineKey> and <forms> as the service runs with them, when both keys are set. */
export interface FormsCookieConfig {
  /** MACHINE_KEY_*: the keys (secrets) and algorithms that protect the site's tickets. */
  readonly machineKey: MachineKeySettings;
  /** FORMS_TIMEOUT: minutes a ticket issued here lives. */
  readonly timeoutMinutes: number;
  /** FORMS_SLIDING: whether the sign-in and account pages renew a ticket issued here past half its life. */
  readonly sliding: boolean;
  readonly unknownMember: (typeof FORMS_UNKNOWN_MEMBER_POLICIES)[number];
}

/** The setting each of machineKey()'s messages is about: it names the attribute first. */
const SETTING_OF_ATTRIBUTE: ReadonlyArray<[RegExp, string]> = [
  [/^validationKey\b/, 'MACHINE_KEY_VALIDATION_KEY'],
  [/^decryptionKey\b/, 'MACHINE_KEY_DECRYPTION_KEY'],
];

/**
 * What stands in the way of the Forms cookie settings: both keys or neither, keys that fit the algorithms, one
 * login cookie name. Values are the parsed ones, undefined where a value did not parse (a problem of its own);
 * `keysSet` says which keys were given at all. No message quotes a key.
 */
export function formsCookieProblems(given: {
  keysSet: { validationKey: boolean; decryptionKey: boolean };
  validationKey: string | undefined;
  decryptionKey: string | undefined;
  validation: ValidationAlgorithm | undefined;
  decryption: DecryptionAlgorithm | undefined;
  compatibilityMode: CompatibilityMode | undefined;
  /** LOGIN_COOKIE_NAME when it was given, not defaulted. */
  loginCookieName: string | undefined;
  formsCookieName: string | undefined;
}): string[] {
  const { keysSet, validationKey, decryptionKey, validation, decryption, compatibilityMode } = given;
  if (keysSet.validationKey !== keysSet.decryptionKey) {
    return ["MACHINE_KEY_VALIDATION_KEY, MACHINE_KEY_DECRYPTION_KEY: set both (the site's <machineKey> keys), or neither"];
  }
  if (!keysSet.validationKey) return [];
  const problems: string[] = [];
  if (given.loginCookieName !== undefined && given.formsCookieName !== undefined && given.loginCookieName !== given.formsCookieName) {
    problems.push(
      `LOGIN_COOKIE_NAME: with the site's keys set, the login cookie is the site's Forms cookie, FORMS_COOKIE_NAME (${given.formsCookieName}): leave LOGIN_COOKIE_NAME unset, or give both the same name`,
    );
  }
  if (validationKey === undefined || decryptionKey === undefined || validation === undefined || decryption === undefined || compatibilityMode === undefined) {
    return problems;
  }
  try {
    machineKey({ validationKey, decryptionKey, validation, decryption, compatibilityMode });
  } catch (error) {
    if (!(error instanceof MachineKeyError)) throw error;
    const setting = SETTING_OF_ATTRIBUTE.find(([attribute]) => attribute.test(error.message))?.[1] ?? 'MACHINE_KEY_*';
    problems.push(`${setting}: ${error.message}`);
  }
  return problems;
}
