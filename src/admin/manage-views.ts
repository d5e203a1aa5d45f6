import type { StaffMember } from '../service/staff.js';
import { MANAGE_ACTIONS, type Issued, type ManageActionName } from './manage-actions.js';
import { ADMIN_PATHS, memberHref } from './paths.js';
import { SITE_ACTIONS, SITE_FORMS, type SiteKind } from './site-kinds.js';
import type { SiteAdded, SiteValues } from './site-forms.js';

/** What the management page lists, as the services give it. */
export interface ManageState {
  staff: readonly StaffMember[];
  callers: ReadonlyArray<{ name: string; enabled: boolean; passwords: readonly unknown[]; origins: ReadonlyArray<{ origin: string; receivesToken: boolean }> }>;
  provisioners: ReadonlyArray<{ name: string }>;
  oidcClients: ReadonlyArray<{ name: string; redirectUris: readonly string[] }>;
  samlSps: ReadonlyArray<{ name: string; entityId: string }>;
  notice?: string | undefined;
  problem?: string | undefined;
}

function confirmHref(action: ManageActionName, input: Record<string, string>): string {
  return `${ADMIN_PATHS.manageConfirm}?${new URLSearchParams({ action, ...input })}`;
}

const link = (action: ManageActionName, input: Record<string, string>) => ({ label: MANAGE_ACTIONS[action].label, href: confirmHref(action, input) });

function addSiteHref(kind: SiteKind): string {
  return `${ADMIN_PATHS.addSite}?${new URLSearchParams({ kind })}`;
}

/** A form that asks for an action's fields and goes to its confirmation (GET: nothing changes yet). */
function form(action: ManageActionName, prefix: string, fixed: Record<string, string> = {}) {
  const spec = MANAGE_ACTIONS[action];
  return {
    action: ADMIN_PATHS.manageConfirm,
    actionName: action,
    label: spec.label,
    hidden: Object.entries(fixed).map(([name, value]) => ({ name, value })),
    fields: spec.fields
      .filter((field) => !(field.name in fixed))
      .map((field) => ({
        id: `${prefix}-${field.name}`,
        name: field.name,
        label: field.label,
        select: 'choices' in field,
        choices: 'choices' in field ? field.choices?.map((choice) => ({ value: choice })) : undefined,
      })),
  };
}

/** The admin staff's page: the staff, partner sites, provisioning clients, OpenID clients and SAML SPs. */
export function manageView(state: ManageState): object {
  return {
    title: 'Manage the service',
    wide: true,
    searchHref: ADMIN_PATHS.search,
    notice: state.notice,
    problem: state.problem,
    staff: state.staff.map((row) => ({ href: memberHref(row.memberId), memberId: row.memberId, username: row.username, role: row.role, revoke: link('staff-revoke', { member: row.memberId }) })),
    grant: form('staff-grant', 'grant'),
    callers: state.callers.map((caller, index) => ({
      name: caller.name,
      enabled: caller.enabled,
      passwords: caller.passwords.length,
      origins: caller.origins.map((origin) => ({ origin: origin.origin, receivesToken: origin.receivesToken, remove: link('caller-remove-origin', { caller: caller.name, origin: origin.origin }) })),
      addOrigin: form('caller-add-origin', `caller-${index}`, { caller: caller.name }),
      rotate: link('caller-rotate', { caller: caller.name }),
      remove: link('caller-remove', { caller: caller.name }),
    })),
    addCaller: form('caller-add', 'new-caller'),
    provisioners: state.provisioners.map((client) => ({ name: client.name, rotate: link('provisioner-rotate', { provisioner: client.name }), remove: link('provisioner-remove', { provisioner: client.name }) })),
    addProvisioner: form('provisioner-add', 'new-provisioner'),
    oidcClients: state.oidcClients.map((client) => ({ name: client.name, uris: client.redirectUris.join(' '), remove: link('oidc-client-remove', { name: client.name }) })),
    addOidcClient: { href: addSiteHref('oidc-client'), label: SITE_FORMS['oidc-client'].label },
    samlSps: state.samlSps.map((sp) => ({ name: sp.name, entityId: sp.entityId, remove: link('saml-sp-remove', { name: sp.name }) })),
    addSamlSp: { href: addSiteHref('saml-sp'), label: SITE_FORMS['saml-sp'].label },
  };
}

/** The confirmation of a management action, with the values typed, carried as hidden fields of its POST. */
export function manageConfirmView(action: ManageActionName, input: Record<string, string>, csrfToken: string): object {
  const spec = MANAGE_ACTIONS[action];
  return {
    title: `${spec.label}?`,
    consequence: spec.consequence(input),
    label: spec.label,
    action: ADMIN_PATHS.manageAction,
    hidden: [{ name: 'action', value: action }, ...spec.fields.map((field) => ({ name: field.name, value: input[field.name] ?? '' }))],
    csrfToken,
    cancelHref: ADMIN_PATHS.manage,
    cancelText: 'Cancel and go back',
  };
}

/** The page that shows a new password or token, this once. */
export function issuedView(action: ManageActionName, issued: Issued): object {
  return { title: MANAGE_ACTIONS[action].done, secret: issued, manageHref: ADMIN_PATHS.manage };
}

/** A site's form (an OpenID client's, a SAML SP's): its fields with what was typed, and each problem linked to its field. */
export function siteFormView(state: {
  kind: SiteKind;
  values: SiteValues;
  problems: Readonly<Record<string, string>>;
  csrfToken: string;
}): object {
  const form = SITE_FORMS[state.kind];
  const id = (name: string) => `site-${name}`;
  const errors = Object.entries(state.problems).map(([field, message]) => ({ field: field === '' ? undefined : id(field), message }));
  return {
    title: form.label,
    manageHref: ADMIN_PATHS.manage,
    hasErrors: errors.length > 0,
    errors,
    action: ADMIN_PATHS.addSite,
    csrfToken: state.csrfToken,
    hidden: [
      { name: 'action', value: SITE_ACTIONS[state.kind] },
      { name: 'kind', value: state.kind },
      { name: 'step', value: 'review' },
    ],
    fields: form.fields.map((field) => {
      const value = state.values[field.name] ?? '';
      const error = state.problems[field.name];
      const describedBy = [field.hint && `${id(field.name)}-hint`, error && `${id(field.name)}-error`].filter(Boolean).join(' ');
      return {
        id: id(field.name),
        name: field.name,
        label: field.label,
        hint: field.hint,
        error,
        describedBy: describedBy || undefined,
        value,
        checkbox: field.kind === 'checkbox',
        checked: value === 'yes',
        lines: field.kind === 'lines',
        text: field.kind === 'text',
        select: field.kind === 'select',
        choices: field.choices?.map((choice) => ({ value: choice, selected: choice === value })),
      };
    }),
  };
}

/** The confirmation of a site's form, carrying what was checked on as hidden fields of its POST. */
export function siteConfirmView(kind: SiteKind, consequence: string, values: SiteValues, csrfToken: string): object {
  const form = SITE_FORMS[kind];
  return {
    title: `${form.label}?`,
    consequence,
    label: form.label,
    action: ADMIN_PATHS.addSite,
    hidden: [
      { name: 'action', value: SITE_ACTIONS[kind] },
      { name: 'kind', value: kind },
      { name: 'step', value: 'confirm' },
      ...form.fields.map((field) => ({ name: field.name, value: values[field.name] ?? '' })),
    ],
    csrfToken,
    cancelHref: ADMIN_PATHS.manage,
    cancelText: 'Cancel and go back',
  };
}

/** The page after a site was added: what identifies it, its secret this once, and what to know. */
export function siteAddedView(kind: SiteKind, added: SiteAdded): object {
  return {
    title: kind === 'oidc-client' ? 'The OpenID client has been added.' : 'The SAML site has been added.',
    hasFacts: added.facts.length > 0,
    facts: added.facts,
    secret: added.secret,
    hasWarnings: added.warnings.length > 0,
    warnings: added.warnings,
    manageHref: ADMIN_PATHS.manage,
  };
}
