/**
 * The membership site's web.config read for its Forms cookie (src/service/forms-ticket/web-config.ts): the
 * <machineKey> and <forms> settings with System.Web's defaults, the mode <httpRuntime targetFramework> implies,
 * and a clear refusal of what cannot be shared, never quoting a key.
 */
import { readWebConfig, WebConfigError } from '../../../src/service/forms-ticket/web-config.js';

const VALIDATION_KEY = '9A'.repeat(64);
const DECRYPTION_KEY = '4C'.repeat(32);

function webConfig({ machineKey = '', forms = '<forms/>', authentication = 'mode="Forms"', systemWeb = '', before = '' } = {}): string {
  return `<?xml version="1.0" encoding="utf-8"?>
${before}<configuration>
  <appSettings><add key="webpages:Version" value="3.0.0.0"/></appSettings>
  <system.web>
    <compilation debug="false" targetFramework="4.8"/>
    ${systemWeb}
    <machineKey validationKey="${VALIDATION_KEY}" decryptionKey="${DECRYPTION_KEY}" ${machineKey}/>
    <authentication ${authentication}>${forms}</authentication>
  </system.web>
  <location path="Admin"><system.web><machineKey validationKey="AutoGenerate"/></system.web></location>
</configuration>`;
}

describe('readWebConfig', () => {
  it('reads an iMIS-like site in 4.5 mode', () => {
    const xml = webConfig({
      systemWeb: '<httpRuntime targetFramework="4.7.2" maxRequestLength="4096"/>',
      machineKey: 'validation="HMACSHA256" decryption="AES"',
      forms: '<forms name="Login" loginUrl="~/Login.aspx" timeout="120" path="/" domain=".example.org" slidingExpiration="false" requireSSL="true"/>',
    });
    expect(readWebConfig(xml)).toEqual({
      machineKey: { validationKey: VALIDATION_KEY, decryptionKey: DECRYPTION_KEY, validation: 'HMACSHA256', decryption: 'AES', compatibilityMode: 'Framework45' },
      forms: { name: 'Login', path: '/', domain: '.example.org', timeoutMinutes: 120, slidingExpiration: false, requireSsl: true },
    });
  });

  it("takes System.Web's defaults for what is not set", () => {
    expect(readWebConfig(webConfig())).toEqual({
      machineKey: { validationKey: VALIDATION_KEY, decryptionKey: DECRYPTION_KEY, validation: 'HMACSHA256', decryption: 'AES', compatibilityMode: 'Framework20SP1' },
      forms: { name: '.ASPXAUTH', path: '/', domain: undefined, timeoutMinutes: 30, slidingExpiration: true, requireSsl: false },
    });
  });

  it.each([
    ['no httpRuntime', '', 'Framework20SP1'],
    ['targetFramework 4.0', '<httpRuntime targetFramework="4.0"/>', 'Framework20SP1'],
    ['targetFramework 4.5', '<httpRuntime targetFramework="4.5"/>', 'Framework45'],
    ['targetFramework 4.8.1', '<httpRuntime targetFramework="4.8.1"/>', 'Framework45'],
  ])('takes the compatibility mode from %s', (_case, systemWeb, mode) => {
    expect(readWebConfig(webConfig({ systemWeb })).machineKey.compatibilityMode).toBe(mode);
  });

  it('lets compatibilityMode override targetFramework', () => {
    const xml = webConfig({ systemWeb: '<httpRuntime targetFramework="4.8"/>', machineKey: 'compatibilityMode="Framework20SP2"' });
    expect(readWebConfig(xml).machineKey.compatibilityMode).toBe('Framework20SP2');
  });

  it('trims the attributes, as MachineKeySection does, and reads a byte-order mark and an old namespace', () => {
    const xml = `\uFEFF<configuration xmlns="http://schemas.microsoft.com/.NetConfiguration/v2.0"><system.web>
      <machineKey validationKey=" ${VALIDATION_KEY} " decryptionKey="${DECRYPTION_KEY}" validation=" SHA1 " decryption="3DES" />
      <authentication mode="Forms"/></system.web></configuration>`.replace('4C'.repeat(32), '4C'.repeat(24));
    expect(readWebConfig(xml).machineKey).toMatchObject({ validationKey: VALIDATION_KEY, validation: 'SHA1', decryption: '3DES' });
  });

  it('signs with HMACSHA1 when a legacy site says validation="AES" or "3DES"', () => {
    expect(readWebConfig(webConfig({ machineKey: 'validation="AES"' })).machineKey.validation).toBe('SHA1');
    expect(readWebConfig(webConfig({ machineKey: 'validation="3DES"' })).machineKey.validation).toBe('SHA1');
  });

  it('reads decryption="Auto" as AES', () => {
    expect(readWebConfig(webConfig({ machineKey: 'decryption="Auto"' })).machineKey.decryption).toBe('AES');
  });

  it('takes a partial protection in 4.5 mode, where FormsAuthentication always encrypts and signs', () => {
    const xml = webConfig({ systemWeb: '<httpRuntime targetFramework="4.5"/>', forms: '<forms protection="Validation"/>' });
    expect(readWebConfig(xml).machineKey.compatibilityMode).toBe('Framework45');
  });
});

describe('readWebConfig refuses', () => {
  it.each<[string, string, string]>([
    ['text that is not XML', '<configuration><system.web>', 'not well-formed XML'],
    ['a DOCTYPE', webConfig({ before: '<!DOCTYPE configuration [<!ENTITY a "b">]>' }), 'has a DOCTYPE'],
    ['no <machineKey>', webConfig().replace(/<machineKey [^>]*\/>/, ''), 'has no <machineKey> in <system.web>'],
    ['two <machineKey>', webConfig({ systemWeb: `<machineKey validationKey="${VALIDATION_KEY}" decryptionKey="${DECRYPTION_KEY}"/>` }), 'more than one <configuration><system.web><machineKey>'],
    ['a <machineKey> in another file', webConfig().replace(/<machineKey [^>]*\/>/, '<machineKey configSource="keys.config"/>'), 'is in another file (configSource="keys.config")'],
    ['keys each server generates', webConfig().replace(VALIDATION_KEY, 'AutoGenerate,IsolateApps'), 'generated by each server'],
    ['a key that is not hex', webConfig().replace(DECRYPTION_KEY, 'not-hex'), '<machineKey>: decryptionKey must be an even number of hex digits'],
    ['an AES key of the wrong length', webConfig().replace(DECRYPTION_KEY, '4C'.repeat(20)), 'decryptionKey for AES must have 32 or 48 or 64 hex digits'],
    ['validation="MD5"', webConfig({ machineKey: 'validation="MD5"' }), '<machineKey validation="MD5"> is not supported in Framework20SP1 mode'],
    ['validation="AES" in 4.5 mode', webConfig({ machineKey: 'validation="AES" compatibilityMode="Framework45"' }), 'validation="AES"> is not supported in Framework45 mode'],
    ['a custom validation algorithm', webConfig({ machineKey: 'validation="alg:HMACSHA1"' }), 'validation="alg:HMACSHA1"> is not supported'],
    ['decryption="DES"', webConfig({ machineKey: 'decryption="DES"' }), '<machineKey decryption="DES"> is not supported'],
    ['decryption="Auto" with an 8-byte (DES) key before 4.5', webConfig({ machineKey: 'decryption="Auto"' }).replace(DECRYPTION_KEY, '4C'.repeat(8)), 'decryption="Auto"> is not supported'],
    ['an unknown compatibility mode', webConfig({ machineKey: 'compatibilityMode="Framework40"' }), 'compatibilityMode="Framework40"> is not Framework20SP1'],
    ['a custom data protector', webConfig({ machineKey: 'dataProtectorType="My.Protector, My"' }), 'dataProtectorType> names a custom data protector'],
    ['a target framework that is not a version', webConfig({ systemWeb: '<httpRuntime targetFramework="latest"/>' }), 'targetFramework="latest"> is not a version'],
    ['a site without Forms authentication', webConfig({ authentication: 'mode="Windows"' }), 'does not sign members in with Forms authentication'],
    ['a site without <authentication>', webConfig().replace(/<authentication[^]*<\/authentication>/, ''), '<authentication mode="Windows">'],
    ['partial protection before 4.5', webConfig({ forms: '<forms protection="Encryption"/>' }), '<forms protection="Encryption"> is not supported'],
    ['a timeout that is not minutes', webConfig({ forms: '<forms timeout="00:30:00"/>' }), '<forms timeout="00:30:00"> is not a number of minutes'],
    ['a slidingExpiration that is not a boolean', webConfig({ forms: '<forms slidingExpiration="yes"/>' }), '<forms slidingExpiration> must be true or false'],
    [
      'the pre-2011 ticket format',
      webConfig().replace('<add key="webpages:Version" value="3.0.0.0"/>', '<add key="aspnet:UseLegacyFormsAuthenticationTicketCompatibility" value="true"/>'),
      'UseLegacyFormsAuthenticationTicketCompatibility',
    ],
    [
      'unsigned legacy encryption',
      webConfig().replace('<add key="webpages:Version" value="3.0.0.0"/>', '<add key="aspnet:UseLegacyEncryption" value="True"/>'),
      'aspnet:UseLegacyEncryption',
    ],
  ])('%s', (_case, xml, message) => {
    expect(() => readWebConfig(xml)).toThrow(WebConfigError);
    expect(() => readWebConfig(xml)).toThrow(message);
  });

  it('without quoting a key', () => {
    const shortKey = '9A'.repeat(10);
    const messageOf = (xml: string) => {
      try {
        readWebConfig(xml);
      } catch (error) {
        return error instanceof Error ? error.message : '';
      }
      return '';
    };
    const message = messageOf(webConfig().replace(VALIDATION_KEY, shortKey));
    expect(message).toContain('validationKey must have at least 40 hex digits');
    expect(message).not.toContain(shortKey);
  });
});
