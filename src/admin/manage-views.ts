import type { StaffMember } from '../service/staff.js';
import { MANAGE_ACTIONS, type Issued, type ManageActionName } from './manage-actions.js';
import { ADMIN_PATHS, memberHref } from './paths.js';

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
    samlSps: state.samlSps.map((sp) => ({ name: sp.name, entityId: sp.entityId, remove: link('saml-sp-remove', { name: sp.name }) })),
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
  return { title: MANAGE_ACTIONS[action].done, label: issued.label, value: issued.value, manageHref: ADMIN_PATHS.manage };
}
