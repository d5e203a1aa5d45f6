import type { ProvisionedMember } from '../../src/provisioning/port.js';

/** A member with every field SCIM shows, for the provisioning tests. */
export const ADA: ProvisionedMember = {
  id: 'm-1',
  externalId: 'ext-1',
  username: 'ada',
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  displayName: null,
  formattedName: null,
  enabled: true,
  attributes: {
    isMember: true,
    contactNumber: 'C-1',
    labelName: 'Countess Lovelace',
    organisationId: 'O-1',
    organisationName: 'Analytical Society',
    priceLevelId: 'P-1',
    priceLevelName: 'Gold',
    roles: [{ id: 'r1', name: 'Reader' }],
    extra: { dept: 'Maths' },
  },
  createdAt: Date.UTC(2024, 0, 2, 3, 4, 5),
  updatedAt: Date.UTC(2024, 5, 6, 7, 8, 9),
  version: 7,
};
