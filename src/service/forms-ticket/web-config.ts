/**
 * The membership site's web.config, read for what its Forms cookie needs: <system.web>'s <machineKey>,
 * <authentication mode="Forms"><forms/>, <httpRuntime targetFramework> (4.5 or later makes Framework45 the
 * default compatibility mode, as MachineKeySection.SetReadOnly does) and the two appSettings that change the
 * ticket's protection. Defaults are System.Web's (validation HMACSHA256, decryption Auto, compatibilityMode
 * Framework20SP1; forms name .ASPXAUTH, path /, timeout 30 minutes, slidingExpiration true, requireSSL false,
 * protection All). Only the top-level <system.web> is read, not <location> ones.
 *
 * What this service cannot do as the site does is refused with a WebConfigError that says why: keys the
 * servers generate (AutoGenerate, IsolateApps), other algorithms, a custom data protector, partial protection,
 * the pre-2011 ticket format. No message quotes a key.
 */
import { SaxesParser } from 'saxes';
import {
  machineKey,
  MachineKeyError,
  type CompatibilityMode,
  type DecryptionAlgorithm,
  type MachineKeySettings,
  type ValidationAlgorithm,
} from './machine-key.js';

/** The cookie the site's <forms> element describes. */
export interface FormsCookieSettings {
  readonly name: string;
  readonly path: string;
  /** The parent domain the cookie is shared on; undefined when the site sets none (its own host only). */
  readonly domain: string | undefined;
  readonly timeoutMinutes: number;
  readonly slidingExpiration: boolean;
  readonly requireSsl: boolean;
}

export interface WebConfigFormsSettings {
  readonly machineKey: MachineKeySettings;
  readonly forms: FormsCookieSettings;
}

/** A web.config this service cannot take the Forms settings from; the message says why. */
export class WebConfigError extends Error {
  override readonly name = 'WebConfigError';
}

type Attributes = Readonly<Record<string, string>>;

const SYSTEM_WEB = 'configuration/system.web';
const WANTED = {
  machineKey: `${SYSTEM_WEB}/machineKey`,
  authentication: `${SYSTEM_WEB}/authentication`,
  forms: `${SYSTEM_WEB}/authentication/forms`,
  httpRuntime: `${SYSTEM_WEB}/httpRuntime`,
  appSetting: 'configuration/appSettings/add',
} as const;
const WANTED_PATHS: ReadonlySet<string> = new Set(Object.values(WANTED));

/** The attributes of each wanted element, by path; DOCTYPEs are refused, so no entity is ever expanded. */
function elementsOf(xml: string): Map<string, Attributes[]> {
  const found = new Map<string, Attributes[]>();
  const parser = new SaxesParser({ xmlns: false });
  const path: string[] = [];
  parser.on('doctype', () => {
    throw new WebConfigError('The web.config has a DOCTYPE, which a web.config never needs: it is not read.');
  });
  parser.on('opentag', (tag) => {
    path.push(tag.name);
    const key = path.join('/');
    if (!WANTED_PATHS.has(key)) return;
    found.set(key, [...(found.get(key) ?? []), { ...tag.attributes }]);
  });
  parser.on('closetag', () => {
    path.pop();
  });
  try {
    parser.write(xml.replace(/^\uFEFF/, '')).close();
  } catch (error) {
    if (error instanceof WebConfigError) throw error;
    throw new WebConfigError(`The web.config is not well-formed XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  return found;
}

/** The one element at a path, or undefined; a second one is an error, as ASP.NET makes it. */
function single(elements: Map<string, Attributes[]>, path: string): Attributes | undefined {
  const all = elements.get(path) ?? [];
  if (all.length > 1) throw new WebConfigError(`The web.config has more than one <${path.split('/').join('><')}>.`);
  const element = all[0];
  if (element?.configSource !== undefined) {
    throw new WebConfigError(`<${path.split('/').at(-1)}> is in another file (configSource="${element.configSource}"): read that file's element instead.`);
  }
  return element;
}

/** An attribute as MachineKeySection reads it: white space trimmed, the default when absent. */
function attribute(element: Attributes | undefined, name: string, fallback: string): string {
  return element?.[name]?.trim() ?? fallback;
}

function booleanAttribute(element: Attributes | undefined, name: string, fallback: boolean): boolean {
  const value = element?.[name]?.trim().toLowerCase();
  if (value === undefined) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new WebConfigError(`<forms ${name}> must be true or false.`);
}

/** Whether <httpRuntime targetFramework> is 4.5 or later. */
function targetsFramework45(httpRuntime: Attributes | undefined): boolean {
  const target = httpRuntime?.targetFramework?.trim();
  if (target === undefined || target === '') return false;
  const match = /^(\d+)\.(\d+)(?:\.\d+)*$/.exec(target);
  if (match === null) throw new WebConfigError(`<httpRuntime targetFramework="${target}"> is not a version such as 4.5 or 4.8.`);
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 4 || (major === 4 && minor >= 5);
}

function compatibilityModeOf(element: Attributes | undefined, httpRuntime: Attributes | undefined): CompatibilityMode {
  const mode = attribute(element, 'compatibilityMode', targetsFramework45(httpRuntime) ? 'Framework45' : 'Framework20SP1');
  if (mode === 'Framework20SP1' || mode === 'Framework20SP2' || mode === 'Framework45') return mode;
  throw new WebConfigError(`<machineKey compatibilityMode="${mode}"> is not Framework20SP1, Framework20SP2 or Framework45.`);
}

function validationOf(element: Attributes | undefined, mode: CompatibilityMode): ValidationAlgorithm {
  const validation = attribute(element, 'validation', 'HMACSHA256');
  if (validation === 'SHA1' || validation === 'HMACSHA256' || validation === 'HMACSHA384' || validation === 'HMACSHA512') return validation;
  // Before 4.5, validation="AES" or "3DES" signs with HMACSHA1 (MachineKeySection.InitValidationAndEncyptionSizes).
  if ((validation === 'AES' || validation === '3DES') && mode !== 'Framework45') return 'SHA1';
  throw new WebConfigError(`<machineKey validation="${validation}"> is not supported in ${mode} mode: use SHA1, HMACSHA256, HMACSHA384 or HMACSHA512.`);
}

function decryptionOf(element: Attributes | undefined, mode: CompatibilityMode, decryptionKey: string): DecryptionAlgorithm {
  const decryption = attribute(element, 'decryption', 'Auto');
  if (decryption === 'AES' || decryption === '3DES') return decryption;
  // "Auto" is AES, except that before 4.5 an 8-byte key means DES (MachineKeySection.ConfigureEncryptionObject).
  if (decryption === 'Auto' && (mode === 'Framework45' || decryptionKey.length !== 16)) return 'AES';
  throw new WebConfigError(`<machineKey decryption="${decryption}"> is not supported: use AES or 3DES.`);
}

function keyOf(element: Attributes, name: 'validationKey' | 'decryptionKey'): string {
  const key = attribute(element, name, 'AutoGenerate,IsolateApps');
  if (/AutoGenerate|IsolateApps|IsolateByAppId/.test(key)) {
    throw new WebConfigError(
      `<machineKey ${name}> is generated by each server (AutoGenerate, IsolateApps): nothing outside the site can share it. Give the site explicit keys first.`,
    );
  }
  return key;
}

function machineKeySettings(elements: Map<string, Attributes[]>): MachineKeySettings {
  const element = single(elements, WANTED.machineKey);
  if (element === undefined) {
    throw new WebConfigError(
      'The web.config has no <machineKey> in <system.web>: the site uses keys each server generates, or ones set in the server\'s root web.config or machine.config. Read that file, or give the site explicit keys.',
    );
  }
  if (element.dataProtectorType?.trim()) {
    throw new WebConfigError('<machineKey dataProtectorType> names a custom data protector, whose tickets only it can read.');
  }
  const compatibilityMode = compatibilityModeOf(element, single(elements, WANTED.httpRuntime));
  const validationKey = keyOf(element, 'validationKey');
  const decryptionKey = keyOf(element, 'decryptionKey');
  const settings: MachineKeySettings = {
    validationKey,
    decryptionKey,
    validation: validationOf(element, compatibilityMode),
    decryption: decryptionOf(element, compatibilityMode, decryptionKey),
    compatibilityMode,
  };
  try {
    machineKey(settings);
  } catch (error) {
    if (error instanceof MachineKeyError) throw new WebConfigError(`<machineKey>: ${error.message}`);
    throw error;
  }
  return settings;
}

/** The appSettings that change how FormsAuthentication protects and formats its ticket. */
function checkAppSettings(elements: Map<string, Attributes[]>, mode: CompatibilityMode): void {
  const enabled = (key: string) =>
    (elements.get(WANTED.appSetting) ?? []).some((setting) => setting.key?.trim() === key && setting.value?.trim().toLowerCase() === 'true');
  if (enabled('aspnet:UseLegacyFormsAuthenticationTicketCompatibility')) {
    throw new WebConfigError('appSettings turn on aspnet:UseLegacyFormsAuthenticationTicketCompatibility: the pre-2011 ticket format is not supported.');
  }
  if (mode !== 'Framework45' && enabled('aspnet:UseLegacyEncryption')) {
    throw new WebConfigError('appSettings turn on aspnet:UseLegacyEncryption: tickets without a signature over the ciphertext are not supported.');
  }
}

function formsSettings(elements: Map<string, Attributes[]>, mode: CompatibilityMode): FormsCookieSettings {
  const authentication = single(elements, WANTED.authentication);
  const authenticationMode = attribute(authentication, 'mode', 'Windows');
  if (authenticationMode !== 'Forms') {
    throw new WebConfigError(`<authentication mode="${authenticationMode}">: the site does not sign members in with Forms authentication.`);
  }
  const forms = single(elements, WANTED.forms);
  const protection = attribute(forms, 'protection', 'All');
  // From 4.5 on, FormsAuthentication always encrypts and signs, whatever protection says.
  if (protection !== 'All' && mode !== 'Framework45') {
    throw new WebConfigError(`<forms protection="${protection}"> is not supported: only All (encrypted and signed) is.`);
  }
  const timeout = attribute(forms, 'timeout', '30');
  if (!/^\d+$/.test(timeout) || Number(timeout) < 1) throw new WebConfigError(`<forms timeout="${timeout}"> is not a number of minutes.`);
  const domain = attribute(forms, 'domain', '');
  return {
    name: attribute(forms, 'name', '.ASPXAUTH'),
    path: attribute(forms, 'path', '/'),
    domain: domain === '' ? undefined : domain,
    timeoutMinutes: Number(timeout),
    slidingExpiration: booleanAttribute(forms, 'slidingExpiration', true),
    requireSsl: booleanAttribute(forms, 'requireSSL', false),
  };
}

/** The Forms settings of a web.config's text; a WebConfigError says what stands in the way. */
export function readWebConfig(xml: string): WebConfigFormsSettings {
  const elements = elementsOf(xml);
  const key = machineKeySettings(elements);
  checkAppSettings(elements, key.compatibilityMode);
  return { machineKey: key, forms: formsSettings(elements, key.compatibilityMode) };
}
