import { samlFlows } from './flows.js';

samlFlows('sqlite');
