/**
 * The mail templates: a subject, a text and an HTML part per kind, branded, saying when and from where and
 * what to do if it was not the member; values escaped in HTML and written as they are in text; TEMPLATE_DIR
 * replacing one template at a time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mail } from '../../src/mail/mail.js';
import { loadMailTemplates } from '../../src/mail/templates.js';
import type { MailBranding } from '../../src/mail/views.js';
import { StartupError } from '../../src/startup-error.js';

const BRANDING: MailBranding = {
  organizationName: 'Example & Co',
  logoUrl: 'https://example.org/logo.png',
  accentColor: '#0b5cad',
  inkColor: '#0b5cad',
  signInUrl: 'https://example.org/Login',
};
const AT = Date.UTC(2025, 5, 3, 14, 5);
const ORIGIN = { at: AT, client: '203.0.113.7', device: 'Firefox on Windows' };
const LINK = 'https://example.org/Login/reset?token=abc123&member=7';

const templates = loadMailTemplates(undefined, BRANDING);

/** Text without markup, spaces collapsed: what a reader of the HTML part sees. */
const visible = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

describe('each kind', () => {
  const cases: Array<{ mail: Mail; subject: string; says: string[] }> = [
    {
      mail: { kind: 'recovery', to: 'ada@example.org', name: 'Ada', link: LINK, validMinutes: 30, origin: ORIGIN },
      subject: 'Reset your Example & Co password',
      says: ['Hello Ada,', 'Someone asked to reset the password of your Example & Co account', '30 minutes', 'If you did not ask for this, ignore this message'],
    },
    {
      mail: { kind: 'password_changed', to: 'ada@example.org', by: 'account', origin: ORIGIN },
      subject: 'Your Example & Co password was changed',
      says: ['was changed on the account page', 'If this was not you', 'Reset your password from the sign-in page'],
    },
    {
      mail: { kind: 'two_step_enabled', to: 'ada@example.org', by: 'account', origin: ORIGIN },
      subject: 'Two-step verification was turned on for your Example & Co account',
      says: ['You turned on two-step verification', 'If this was not you', 'Change your password'],
    },
    {
      mail: { kind: 'two_step_disabled', to: 'ada@example.org', by: 'account', origin: ORIGIN },
      subject: 'Two-step verification was turned off for your Example & Co account',
      says: ['You turned off two-step verification', 'If this was not you', 'turn two-step verification back on'],
    },
    {
      mail: { kind: 'recovery_code_used', to: 'ada@example.org', remaining: 4, origin: ORIGIN },
      subject: 'A recovery code was used to sign in to your Example & Co account',
      says: ['with a recovery code', 'You have 4 recovery codes left.', 'If this was not you', 'make new recovery codes'],
    },
  ];

  test.each(cases)('$mail.kind: subject, and both parts say what happened, when, from where, and what to do', ({ mail, subject, says }) => {
    const rendered = templates.render(mail);
    expect(rendered.subject).toBe(subject);
    for (const part of [rendered.text, visible(rendered.html)]) {
      for (const phrase of [...says, 'When: 3 June 2025 at 14:05 UTC', 'From the address: 203.0.113.7', 'Device: Firefox on Windows']) {
        expect(part).toContain(phrase);
      }
    }
    expect(rendered.text).not.toMatch(/<[a-z]/i);
    expect(rendered.html).toContain(`<title>${subject.replace('&', '&amp;')}</title>`);
  });

  test('no greeting without a name', () => {
    const { text, html } = templates.render({ kind: 'password_changed', to: 'ada@example.org', by: 'account', origin: ORIGIN });
    expect(text).not.toContain('Hello');
    expect(html).not.toContain('Hello');
  });
});

describe('the recovery mail', () => {
  const mail: Mail = { kind: 'recovery', to: 'ada@example.org', link: LINK, validMinutes: 30, origin: ORIGIN };

  test('the link is a real link with its own text in HTML, and on a line of its own in text', () => {
    const { text, html } = templates.render(mail);
    expect(html).toContain('<a href="https://example.org/Login/reset?token=abc123&amp;member=7" style="color: #0b5cad; font-weight: 600;">Choose a new password</a>');
    expect(text.split('\n')).toContain(LINK);
  });

  test.each([
    [1, '1 minute'],
    [30, '30 minutes'],
    [60, '1 hour'],
    [90, '90 minutes'],
    [120, '2 hours'],
  ])('valid for %i minutes reads "%s"', (validMinutes, phrase) => {
    expect(templates.render({ ...mail, validMinutes }).text).toContain(`it works for ${phrase})`);
  });
});

test('who made a change: the member, a recovery link or an administrator', () => {
  const change = (by: 'account' | 'recovery' | 'admin') => templates.render({ kind: 'password_changed', to: 'a@example.org', by, origin: ORIGIN }).text;
  expect(change('recovery')).toContain('was reset with a recovery link sent to this address');
  expect(change('admin')).toContain('An administrator of Example & Co set a new password for your account');
  const twoStep = templates.render({ kind: 'two_step_disabled', to: 'a@example.org', by: 'admin', origin: ORIGIN }).text;
  expect(twoStep).toContain('An administrator turned off two-step verification');
});

test('a change with no client (the admin CLI) says when, and no address or device', () => {
  const { text, html } = templates.render({ kind: 'password_changed', to: 'a@example.org', by: 'admin', origin: { at: AT } });
  expect(text).toContain('When: 3 June 2025 at 14:05 UTC');
  for (const part of [text, html]) {
    expect(part).not.toContain('From the address');
    expect(part).not.toContain('Device:');
  }
});

test.each([
  [0, 'You have no recovery codes left: make new ones on your account page.'],
  [1, 'You have 1 recovery code left.'],
  [2, 'You have 2 recovery codes left.'],
])('recovery codes left: %i', (remaining, phrase) => {
  const { text, html } = templates.render({ kind: 'recovery_code_used', to: 'a@example.org', remaining, origin: ORIGIN });
  expect(text).toContain(phrase);
  expect(visible(html)).toContain(phrase);
});

describe('branding', () => {
  const mail: Mail = { kind: 'two_step_enabled', to: 'a@example.org', by: 'account', origin: ORIGIN };

  test('the logo with the organization as its alt text, the accent colour, links in the ink colour', () => {
    const { html } = loadMailTemplates(undefined, { ...BRANDING, accentColor: '#ffcc00', inkColor: '#1a1a1a' }).render(mail);
    expect(html).toContain('<img src="https://example.org/logo.png" alt="Example &amp; Co"');
    expect(html).toContain('border-top: 4px solid #ffcc00');
    expect(html).toContain('<a href="https://example.org/Login" style="color: #1a1a1a; font-weight: 600;">sign-in page</a>');
  });

  test('without a logo, or with a path for one (a mail cannot resolve it), the name is written instead', () => {
    for (const logoUrl of [undefined, '/images/logo.png']) {
      const { html } = loadMailTemplates(undefined, { ...BRANDING, logoUrl }).render(mail);
      expect(html).not.toContain('<img');
      expect(html).toContain('<p style="margin: 0; font-size: 18px; font-weight: 600;">Example &amp; Co</p>');
    }
  });

  test('without a sign-in URL the mails name the page without a link', () => {
    const { text, html } = loadMailTemplates(undefined, { ...BRANDING, signInUrl: undefined }).render(mail);
    expect(text).toContain('Change your password from the sign-in page now, and tell Example & Co.');
    expect(html).not.toContain('<a ');
    expect(visible(html)).toContain('Change your password from the sign-in page now');
  });
});

test('values are escaped in HTML and written as they are in text; the subject stays one line', () => {
  const hostile = { ...BRANDING, organizationName: 'Evil <b>"Co"</b>' };
  const device = '<script>alert(1)</script>';
  const { subject, text, html } = loadMailTemplates(undefined, hostile).render({
    kind: 'password_changed',
    to: 'a@example.org',
    name: "O'Brien & <i>Sons</i>",
    by: 'account',
    origin: { ...ORIGIN, device },
  });
  expect(html).not.toContain('<script>');
  expect(html).not.toContain('<b>');
  expect(html).not.toContain('<i>');
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).toContain('Evil &lt;b&gt;&quot;Co&quot;&lt;/b&gt;');
  expect(html).toContain('Hello O&#39;Brien &amp; &lt;i&gt;Sons&lt;/i&gt;,');
  expect(text).toContain(`Device: ${device}`);
  expect(text).toContain("Hello O'Brien & <i>Sons</i>,");
  expect(subject).toBe('Your Evil <b>"Co"</b> password was changed');
});

describe('TEMPLATE_DIR', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mail-templates-'));
    mkdirSync(join(dir, 'mail'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a file in its mail/ folder replaces that template only; a subject written on several lines becomes one', () => {
    writeFileSync(join(dir, 'mail', 'recovery.subject.mustache'), '{{organizationName}}:\nyour\n  new password\n');
    writeFileSync(join(dir, 'mail', 'origin.text.mustache'), 'At {{when}}.\n');
    const own = loadMailTemplates(dir, BRANDING);
    const recovery = own.render({ kind: 'recovery', to: 'a@example.org', link: LINK, validMinutes: 30, origin: ORIGIN });
    expect(recovery.subject).toBe('Example & Co: your new password');
    expect(recovery.text).toContain('At 3 June 2025 at 14:05 UTC.');
    expect(recovery.text).not.toContain('From the address');
    expect(recovery.html).toContain('From the address: 203.0.113.7');
    const other = own.render({ kind: 'password_changed', to: 'a@example.org', by: 'account', origin: ORIGIN });
    expect(other.subject).toBe('Your Example & Co password was changed');
  });

  test('a template that does not parse stops the start, naming the file', () => {
    const file = join(dir, 'mail', 'two-step-enabled.html.mustache');
    writeFileSync(file, '<p>{{#open}}never closed</p>');
    expect(() => loadMailTemplates(dir, BRANDING)).toThrow(StartupError);
    expect(() => loadMailTemplates(dir, BRANDING)).toThrow(`mail template ${file}: Unclosed section "open"`);
  });
});
