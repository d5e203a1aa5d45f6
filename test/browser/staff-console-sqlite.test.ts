import { describeWithBrowser } from '../helpers/browser.js';
import { staffConsoleInBrowser } from './staff-console.js';

describeWithBrowser('the staff console in Chromium, on SQLite', () => staffConsoleInBrowser('sqlite'));
