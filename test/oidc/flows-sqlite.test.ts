import { oidcFlows } from './flows.js';

oidcFlows('sqlite');
