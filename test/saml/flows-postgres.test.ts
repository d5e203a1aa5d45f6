import { describeWithPostgres } from '../helpers/postgres.js';
import { samlFlows } from './flows.js';

describeWithPostgres('the SAML identity provider', () => samlFlows('postgres'));
