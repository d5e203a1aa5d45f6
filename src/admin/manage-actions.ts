import { ServiceError } from '../service/errors.js';
import type { EventContext, Services } from '../service/index.js';
import { STAFF_ROLES } from '../service/staff.js';

/** A field a management action takes: typed on the management page, carried through its confirmation. */
export interface ManageField {
  name: string;
  label: string;
  /** Choices for a select; a text field without. */
  choices?: readonly string[];
}

/** What an action made that is shown once, on the page that answers its POST: a password or a token. */
export interface Issued {
  label: string;
  value: string;
}

export interface ManageAction {
  /** The button on the confirmation page, and the link or form on the management page. */
  label: string;
  fields: readonly ManageField[];
  /** What the confirmation page says will happen, for these values. */
  consequence(input: Record<string, string>): string;
  /** What the management page says afterwards. */
  done: string;
  /** `by`: the staff member and their request, for the events of the services that record one. */
  run(services: Services, input: Record<string, string>, by: EventContext): Promise<Issued | undefined>;
}

const MEMBER: ManageField = { name: 'member', label: 'Member id' };
const CALLER: ManageField = { name: 'caller', label: 'Partner site (caller) name' };
const ORIGIN: ManageField = { name: 'origin', label: 'Origin, such as https://shop.example.org' };
const PROVISIONER: ManageField = { name: 'provisioner', label: 'Provisioning client name' };
const NAME: ManageField = { name: 'name', label: 'Name' };

/**
 * What only admin staff do in the console (docs/staff.md): the staff, the partner sites (callers), the
 * provisioning clients, and removing OpenID clients and SAML SPs (adding those has a form of its own:
 * site-forms.ts). Each runs the same service call as its CLI command; a password or token it makes is shown once.
 */
export const MANAGE_ACTIONS = {
  'staff-grant': {
    label: 'Grant the staff role',
    fields: [MEMBER, { name: 'role', label: 'Role', choices: STAFF_ROLES }],
    consequence: ({ member, role }) => `Member ${member} can use the staff console as ${role}, once signed in with a second factor.`,
    done: 'The staff role has been granted.',
    run: async (s, { member = '', role }, by) => {
      await s.staff.grant(member, role === 'admin' ? 'admin' : 'support', by);
      return undefined;
    },
  },
  'staff-revoke': {
    label: 'Take the staff role away',
    fields: [MEMBER],
    consequence: ({ member }) => `Member ${member} can no longer use the staff console, from the next page on.`,
    done: 'The staff role has been taken away.',
    run: async (s, { member = '' }, by) => {
      await s.staff.revoke(member, by);
      return undefined;
    },
  },
  'caller-add': {
    label: 'Add the partner site',
    fields: [CALLER],
    consequence: ({ caller }) => `The partner site ${caller} gets a security password, shown once on the next page: give it to the site's developers.`,
    done: 'The partner site has been added.',
    run: async (s, { caller = '' }, by) => ({ label: `Security password of ${caller}`, value: (await s.callers.add(caller, undefined, by)).password }),
  },
  'caller-rotate': {
    label: 'Make a new security password',
    fields: [CALLER],
    consequence: ({ caller }) => `${caller} gets a new security password, shown once; its old ones keep working until retired with the CLI, so that the site can switch over.`,
    done: 'A new security password has been made.',
    run: async (s, { caller = '' }, by) => ({ label: `New security password of ${caller}`, value: (await s.callers.rotate(caller, {}, by)).password }),
  },
  'caller-add-origin': {
    label: 'Allow the origin',
    fields: [CALLER, ORIGIN],
    consequence: ({ caller, origin }) => `The sign-in and sign-out pages may send members back to ${origin}, for ${caller}.`,
    done: 'The origin has been allowed.',
    run: async (s, { caller = '', origin = '' }, by) => {
      await s.callers.addOrigin(caller, origin, {}, by);
      return undefined;
    },
  },
  'caller-remove-origin': {
    label: 'Stop allowing the origin',
    fields: [CALLER, ORIGIN],
    consequence: ({ caller, origin }) => `The pages no longer send members back to ${origin} for ${caller}.`,
    done: 'The origin is no longer allowed.',
    run: async (s, { caller = '', origin = '' }, by) => {
      await s.callers.removeOrigin(caller, origin, by);
      return undefined;
    },
  },
  'caller-remove': {
    label: 'Remove the partner site',
    fields: [CALLER],
    consequence: ({ caller }) => `${caller} and its security passwords are deleted: its calls are refused from now on.`,
    done: 'The partner site has been removed.',
    run: async (s, { caller = '' }, by) => {
      await s.callers.remove(caller, by);
      return undefined;
    },
  },
  'provisioner-add': {
    label: 'Add the provisioning client',
    fields: [PROVISIONER],
    consequence: ({ provisioner }) => `${provisioner} gets a SCIM bearer token, shown once on the next page: copy it into the identity platform.`,
    done: 'The provisioning client has been added.',
    run: async (s, { provisioner = '' }, by) => ({ label: `Bearer token of ${provisioner}`, value: (await s.provisioners.add(provisioner, by)).token }),
  },
  'provisioner-rotate': {
    label: 'Make a new token',
    fields: [PROVISIONER],
    consequence: ({ provisioner }) => `${provisioner} gets a new bearer token, shown once; the old one stops working at once.`,
    done: 'A new token has been made.',
    run: async (s, { provisioner = '' }, by) => ({ label: `New bearer token of ${provisioner}`, value: (await s.provisioners.rotate(provisioner, by)).token }),
  },
  'provisioner-remove': {
    label: 'Remove the provisioning client',
    fields: [PROVISIONER],
    consequence: ({ provisioner }) => `${provisioner} and its token are deleted: its SCIM requests are refused from now on.`,
    done: 'The provisioning client has been removed.',
    run: async (s, { provisioner = '' }, by) => {
      await s.provisioners.remove(provisioner, by);
      return undefined;
    },
  },
  'oidc-client-remove': {
    label: 'Remove the OpenID client',
    fields: [NAME],
    consequence: ({ name }) => `The OpenID client ${name} is deleted: its members can no longer sign in to it through this service.`,
    done: 'The OpenID client has been removed.',
    run: async (s, { name = '' }, by) => {
      await s.oidc.clients.remove(name, by);
      return undefined;
    },
  },
  'saml-sp-remove': {
    label: 'Remove the SAML site',
    fields: [NAME],
    consequence: ({ name }) => `The SAML service provider ${name} is deleted: its members can no longer sign in to it through this service.`,
    done: 'The SAML site has been removed.',
    run: async (s, { name = '' }, by) => {
      if (!(await s.saml.sps.remove(name, by))) throw new ServiceError('SAML_SP_NOT_FOUND', name);
      return undefined;
    },
  },
} as const satisfies Record<string, ManageAction>;

export type ManageActionName = keyof typeof MANAGE_ACTIONS;

export function isManageAction(value: unknown): value is ManageActionName {
  return typeof value === 'string' && Object.hasOwn(MANAGE_ACTIONS, value);
}
