/**
 * ORGANIZATION_NAME in every page and mail: named when set ("Sign in to Example Society"), left out when unset
 * ("Sign in"), never a placeholder or a gap where it would have been.
 */
import { loadMailTemplates } from '../../src/mail/templates.js';
import type { Mail } from '../../src/mail/mail.js';
import { loadTemplates, type PageName } from '../../src/signin/templates.js';
import { brandingView } from '../../src/web/branding.js';

const NAME = 'Example Society';
const ORIGIN = { at: Date.UTC(2025, 5, 3, 14, 5), client: '203.0.113.7' };

/** Text without markup, spaces collapsed: what a reader sees. */
const visible = (html: string) =>
  html
    .replace(/<style[^]*?<\/style>/g, ' ')
    .replace(/<\/?(strong|a)\b[^>]*>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** What a missing name would leave behind in a page's or a mail's source: a placeholder, or a gap where it was. */
function expectNoTraceOfAMissingName(source: string): void {
  expect(source).not.toContain('Member sign-in');
  expect(source).not.toContain('undefined');
  expect(source).not.toMatch(/\b(of|to|for|your|tell) ([.,:]|as\b|<\/| )| – <\/title>|<p><\/p>/);
}

describe('the pages', () => {
  // Each page's own view, enough for what its template reads; the title is the page's heading or tab title.
  const pages: Array<{ page: PageName; title: string; unnamed: string[]; named: string[] }> = [
    { page: 'home', title: 'Welcome', unnamed: ['Welcome Members sign in here to the sites that share this sign-in.'], named: [`${NAME} Members sign in here to the sites of ${NAME} that share`] },
    { page: 'login', title: 'Sign in', unnamed: ['Sign in'], named: [`Sign in to ${NAME}`] },
    { page: 'signed-in', title: 'Signed in', unnamed: ['Signed in as Ada'], named: [`Signed in to ${NAME} as Ada`] },
    { page: 'message', title: 'Signed out', unnamed: ['Signed out'], named: ['Signed out'] },
    { page: 'code', title: 'Enter your code', unnamed: ['For your security, we also ask for a code', 'it shows for this account.'], named: [`For your security, ${NAME} also asks for a code`, `it shows for ${NAME}.`] },
    {
      page: 'setup',
      title: 'Set up two-step verification',
      unnamed: ['We ask every member', 'Add this account to your authenticator app', 'shows now for this account:'],
      named: [`${NAME} asks every member`, `Add ${NAME} to your authenticator app`, `shows now for ${NAME}:`],
    },
    { page: 'recovery-codes', title: 'Save your recovery codes', unnamed: ['Save your recovery codes'], named: ['Save your recovery codes'] },
    { page: 'account', title: 'Your account', unnamed: ['Signed in as Ada', 'It is required: you will be asked'], named: [`Signed in to ${NAME} as Ada`, `${NAME} requires it: you will be asked`] },
    { page: 'forgot', title: 'Reset your password', unnamed: ['the username or email address of your account.'], named: [`the username or email address of your ${NAME} account.`] },
    { page: 'reset-password', title: 'Choose a new password', unnamed: ['Choose a new password'], named: ['Choose a new password'] },
    { page: 'oidc-consent', title: 'Share your details with Portal?', unnamed: ['Portal asks to sign you in with your account, Ada,'], named: [`Portal asks to sign you in with your ${NAME} account, Ada,`] },
    {
      page: 'oidc-logout',
      title: 'Sign out',
      unnamed: ['Signing out here signs you out here and of every site you signed in to with this account.'],
      named: [`Signing out here signs you out of ${NAME} and of every site you signed in to with it.`],
    },
  ];
  const templates = loadTemplates(undefined);
  const render = (page: PageName, title: string, organizationName: string | undefined) =>
    templates.render(page, {
      ...brandingView({ organizationName, logoUrl: undefined, accentColor: '#0b5cad', templateDir: undefined }),
      title,
      message: 'You are signed out.',
      memberName: 'Ada',
      clientName: 'Portal',
      mfaRequired: true,
      required: true,
      twoStep: { enabled: true },
      hasSecondFactor: true,
      codes: ['aaaa-bbbb'],
    });

  test.each(pages)('$page: the title and text name the organisation when it is set, and leave it out when not', ({ page, title, unnamed, named }) => {
    const without = render(page, title, undefined);
    expect(without).toContain(`<title>${title}</title>`);
    for (const phrase of unnamed) expect(visible(without)).toContain(phrase);
    expectNoTraceOfAMissingName(without);

    const withName = render(page, title, NAME);
    expect(withName).toContain(`<title>${title} – ${NAME}</title>`);
    for (const phrase of named) expect(visible(withName)).toContain(phrase);
  });
});

describe('the mails', () => {
  const mails: Array<{ mail: Mail; unnamed: string; named: string }> = [
    { mail: { kind: 'recovery', to: 'a@example.org', link: 'https://example.org/r', validMinutes: 30, origin: ORIGIN }, unnamed: 'Reset your password', named: `Reset your ${NAME} password` },
    { mail: { kind: 'password_changed', to: 'a@example.org', by: 'admin', origin: ORIGIN }, unnamed: 'Your password was changed', named: `Your ${NAME} password was changed` },
    { mail: { kind: 'two_step_enabled', to: 'a@example.org', by: 'account', origin: ORIGIN }, unnamed: 'Two-step verification was turned on for your account', named: `Two-step verification was turned on for your ${NAME} account` },
    { mail: { kind: 'two_step_disabled', to: 'a@example.org', by: 'account', origin: ORIGIN }, unnamed: 'Two-step verification was turned off for your account', named: `Two-step verification was turned off for your ${NAME} account` },
    { mail: { kind: 'recovery_code_used', to: 'a@example.org', remaining: 3, origin: ORIGIN }, unnamed: 'A recovery code was used to sign in to your account', named: `A recovery code was used to sign in to your ${NAME} account` },
  ];
  const branding = { logoUrl: undefined, accentColor: '#0b5cad', inkColor: '#0b5cad', signInUrl: 'https://example.org/Login' };
  const unnamed = loadMailTemplates(undefined, { ...branding, organizationName: undefined });
  const named = loadMailTemplates(undefined, { ...branding, organizationName: NAME });

  test.each(mails)('$mail.kind: the subject and both parts name the organisation when it is set, and leave it out when not', ({ mail, unnamed: subject, named: namedSubject }) => {
    const without = unnamed.render(mail);
    expect(without.subject).toBe(subject);
    expectNoTraceOfAMissingName(without.text);
    expectNoTraceOfAMissingName(without.html);
    for (const part of [without.text, visible(without.html)]) expect(part).toContain('We sent you this message about your account.');
    const withName = named.render(mail);
    expect(withName.subject).toBe(namedSubject);
    for (const part of [withName.text, visible(withName.html)]) expect(part).toContain(`${NAME} sent you this message about your account.`);
  });

  test('a change by an administrator, and what to do if it was not the member, read well without the name', () => {
    const { text } = unnamed.render({ kind: 'password_changed', to: 'a@example.org', by: 'admin', origin: ORIGIN });
    expect(text).toContain('An administrator set a new password for your account');
    expect(text).toContain('and tell us.');
    expect(named.render({ kind: 'password_changed', to: 'a@example.org', by: 'admin', origin: ORIGIN }).text).toContain(`An administrator of ${NAME} set`);
  });
});
