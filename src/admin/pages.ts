import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';

/** A page of the console, by template name: those of the console, and the layout's message page. */
export type AdminPageName = 'admin-search' | 'admin-member' | 'admin-confirm' | 'admin-manage' | 'admin-issued' | 'admin-site-form' | 'message';

/**
 * What the console gets from the app, which owns the sign-in pages' parts: pages in their layout, branding and
 * security headers; the forms' CSRF guard (a nonce cookie of the console's own, scoped to ADMIN_PATH, with the
 * proof under the server key); and the device's name as the member pages read a User-Agent.
 */
export interface AdminPages {
  render(req: IncomingMessage, res: ServerResponse, name: AdminPageName, page: object): string;
  /** The form field's value; sets the nonce cookie when the browser has none. */
  formToken(req: Request, res: Response): string;
  /** Whether a form comes from the service's own origin with a valid proof. */
  formChecked(req: Request, submitted: unknown): boolean;
  deviceName(userAgent: string | null | undefined): string | undefined;
}
