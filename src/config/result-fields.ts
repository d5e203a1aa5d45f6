/**
 * The fields a result may carry beyond the member's core ones, by name, so that configuration can choose
 * them and be checked at start-up. What each holds is in src/bindings/result/formats.ts.
 */

/** CRM4M's JSON fields, in the order its clients are known to receive them. */
export const JSON_FIELD_NAMES = [
  'status',
  'message',
  'contactid',
  'pa_webloginname',
  'emailaddress1',
  'firstname',
  'lastname',
  'fullname',
  'pa_member',
  'pa_token',
  'pa_contactnumber',
  'pa_labelname',
  'parentcustomerid',
  'parentcustomerid_id',
  'defaultpricelevelid',
  'defaultpricelevelid_id',
  'pa_webroles',
] as const;
export type JsonFieldName = (typeof JSON_FIELD_NAMES)[number];

/** The JSON fields of the json format when JSON_FIELDS is not set: the shape it always had. */
export const DEFAULT_JSON_FIELDS = 'status,message,contactid,pa_token,emailaddress1,firstname,lastname,fullname';

/** The attributes every iBridge User element has; chosen attributes may not repeat them. */
export const IBRIDGE_CORE_ATTRIBUTES = ['ID', 'TOKEN', 'EMAIL', 'FIRSTNAME', 'LASTNAME', 'FULL_NAME', 'USER_COOKIE'] as const;

/** Member attributes an iBridge User element can add to its core ones. */
export const IBRIDGE_ATTRIBUTE_NAMES = [
  'IS_MEMBER',
  'CONTACT_NUMBER',
  'LABEL_NAME',
  'ORGANISATION_ID',
  'ORGANISATION_NAME',
  'PRICE_LEVEL_ID',
  'PRICE_LEVEL_NAME',
  'ROLES',
] as const;
export type IbridgeAttributeName = (typeof IBRIDGE_ATTRIBUTE_NAMES)[number];

/** A member's free-form attribute, named in a field list as `attr:<key>`. */
export const EXTRA_PREFIX = 'attr:';

/** A chosen field: one of the catalogue's, or a free-form attribute of the member under its own key. */
export type ChosenField<Name extends string> = { kind: 'known'; name: Name } | { kind: 'extra'; key: string };
