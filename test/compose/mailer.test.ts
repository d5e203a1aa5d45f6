/** The mails' branding from the pages' settings: LOGO_URL and the sign-in page made absolute with PUBLIC_URL. */
import { loadConfig } from '../../src/config/config.js';
import { mailBranding } from '../../src/compose/mailer.js';

it('resolves a LOGO_URL path and the sign-in page against PUBLIC_URL, and keeps the pages\' colours', () => {
  const config = loadConfig({
    PUBLIC_URL: 'https://members.example.org/webservices',
    LOGO_URL: '/assets/logo.png',
    LOGIN_PATH: '/SignIn',
    ORGANIZATION_NAME: 'Example Society',
    ACCENT_COLOR: '#ffd700',
  });
  expect(mailBranding(config)).toEqual({
    organizationName: 'Example Society',
    logoUrl: 'https://members.example.org/assets/logo.png',
    accentColor: '#ffd700',
    // Gold does not read on white: links take the pages' near-black.
    inkColor: '#1a1a1a',
    signInUrl: 'https://members.example.org/SignIn',
  });
});

it('keeps an absolute LOGO_URL; without PUBLIC_URL there is no link to the sign-in page', () => {
  const branding = mailBranding(loadConfig({ LOGO_URL: 'https://cdn.example.org/logo.png', ACCENT_COLOR: '#0b5cad' }));
  expect(branding).toMatchObject({ logoUrl: 'https://cdn.example.org/logo.png', inkColor: '#0b5cad', signInUrl: undefined });
});
