import express, { type Router } from 'express';
import { ENDPOINT_FILE } from '../web/endpoint-url.js';
import type { PageKit } from './pages.js';

/**
 * The site's root, `/`: a page in the sign-in pages' layout that leads a member to the sign-in page and an
 * integrator to the endpoint's help page, rather than a 404. It has no form and sets no cookie, so, like the
 * endpoint, it answers at any host.
 */
export function createHomePage({ config, headers, page }: Pick<PageKit, 'config' | 'headers' | 'page'>): Router {
  const view = {
    title: 'Welcome',
    signInHref: config.signin.loginPath,
    endpointHref: `${config.basePath}/${ENDPOINT_FILE}`,
  };
  return express.Router().get('/', headers, (_req, res) => page(res, 200, 'home', view));
}
