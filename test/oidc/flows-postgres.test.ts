import { describeWithPostgres } from '../helpers/postgres.js';
import { oidcFlows } from './flows.js';

describeWithPostgres('the OpenID provider', () => oidcFlows('postgres'));
