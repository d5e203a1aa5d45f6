import { JSON_FIELD_NAMES } from './result-fields.js';

export const PROFILE_NAMES = ['isgweb', 'crm4m'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** The wording of the vendors' help pages, from ../shared/reference/vendor-profiles.md. */
const UNIFIED_LOGIN = "implement the 'Unified Login' architecture.";
const SHARED_DOCUMENTATION = {
  AuthenticateToken: 'Verifies the existence of a user session.',
  AuthenticateUser: `Logins the user into the system using the 'Unified Login' architecture.`,
  DeleteUserSession: 'Deletes a user session that has been created using the AuthenticateUser method.',
};

/**
 * What PROFILE sets: the settings a deployment of that vendor's partner clients needs, as defaults that any
 * setting given on its own overrides. Values are written as they would be in the environment.
 */
export const PROFILES: Readonly<Record<ProfileName, Readonly<Record<string, string>>>> = {
  // ISG Solutions iBridge / ISGweb for iMIS. Its published WSDL names the service and ports after the class
  // and the portType after the [WebService] name, so the three names are set one by one.
  isgweb: {
    SOAP_NAMESPACE: 'http://ibridge.isgsolutions.com/Authentication/',
    SERVICE_NAME: 'Authentication',
    WSDL_BINDING_NAME: 'Authentication',
    WSDL_PORT_TYPE_NAME: 'Authentication Web Service',
    SERVICE_DOCUMENTATION: `The Authentication web service is used to authenticate a user in the iMIS database and ${UNIFIED_LOGIN}`,
    OPERATION_DOCUMENTATION: JSON.stringify({
      AuthenticateCookie: 'Obtain the user that is authenticated by Imis login page.',
      ...SHARED_DOCUMENTATION,
      Login: 'Logins the user into the system verifying if the username and password are correct and exist in the database.',
    }),
    OPERATIONS: 'AuthenticateCookie,AuthenticateToken,AuthenticateUser,DeleteUserSession,Login',
    RESULT_FORMAT: 'ibridge',
    BASE_PATH: '/iservices',
    TOKEN_COOKIE_NAME: 'Token',
  },
  // Protech CRM4M: ASMX's generator named everything from [WebService(Name = "Authentication Web Service")].
  crm4m: {
    SOAP_NAMESPACE: 'http://webportalbridge.ptassoc.com/Authentication/',
    SERVICE_NAME: 'Authentication Web Service',
    SERVICE_DOCUMENTATION: `The Authentication web service is used to authenticate a user in the CRM4M database and ${UNIFIED_LOGIN}`,
    OPERATION_DOCUMENTATION: JSON.stringify({
      ...SHARED_DOCUMENTATION,
      ValidateUser: 'Verifies that the username and password are correct and exist in the database, without creating a session.',
    }),
    OPERATIONS: 'AuthenticateToken,AuthenticateUser,DeleteUserSession,ValidateUser',
    // Its AuthenticateUser takes securityPassword, username and password only.
    AUTHENTICATION_TOKEN_PARAMETER: 'false',
    RESULT_FORMAT: 'json',
    JSON_FIELDS: JSON_FIELD_NAMES.join(','),
    BASE_PATH: '/DesktopModules/MX',
    MEMBER_ID_FORMAT: 'guid',
    SESSION_TOKEN_FORMAT: 'guid',
  },
};
