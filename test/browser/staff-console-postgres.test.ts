import { describeWithBrowser } from '../helpers/browser.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { staffConsoleInBrowser } from './staff-console.js';

describeWithPostgres('the staff console on PostgreSQL', () => describeWithBrowser('in Chromium', () => staffConsoleInBrowser('postgres')));
