#!/usr/bin/env node
// @ts-check
/**
 * The benchmark's floor: the design card's stack with nothing of the service in it, answering every call with
 * one constant result (the seeded member's, as the reference renders it). No routing rules, no strict reader,
 * no store, no log, no request id.
 *
 * - SOAP 1.1 and 1.2: node-soap on Express, on the service's own WSDL (the text its ?wsdl serves), set as a
 *   node-soap user sets it to answer as ASMX does with its public options alone (a Content-Length, empty
 *   elements self-closed, the result text escaped as ASMX escapes it). node-soap's SOAP 1.2 switch is one per
 *   server, so there are two, and the Content-Type picks one.
 * - HTTP GET and POST: a bare Express route each (POST reads its form with express.urlencoded), answering the
 *   result as ASMX's string element.
 *
 * scripts/bench/run.mjs starts it as a child process (fork) with its settings in BENCH_FLOOR (JSON, see
 * FloorConfig) and learns the port from an IPC message { port }.
 */
import express from 'express';
import soap from 'soap';
import { listenAsChild } from './child-server.mjs';
import { escapeText } from './reference-server.mjs';

/**
 * @typedef {object} FloorConfig
 * @property {number} port 0 for any free port
 * @property {string} namespace the service namespace (SOAP_NAMESPACE), ending with "/"
 * @property {string} wsdl the WSDL text the service serves
 * @property {string} result the result text every call is answered with
 */

const ENDPOINT = '/Authentication.asmx';
const OPERATIONS = ['AuthenticateToken', 'AuthenticateCookie'];

/**
 * The node-soap services object: every port of every service of the WSDL answers each operation with the result.
 * @param {string} wsdl
 * @param {string} result
 */
function constantServices(wsdl, result) {
  const methods = Object.fromEntries(OPERATIONS.map((operation) => [operation, () => ({ [`${operation}Result`]: escapeText(result) })]));
  const service = /<wsdl:service name="([^"]+)"/.exec(wsdl)?.[1];
  if (!service) throw new Error('the WSDL names no service');
  const ports = [...wsdl.matchAll(/<wsdl:port name="([^"]+)"/g)].map((match) => match[1] ?? '');
  return { [service]: Object.fromEntries(ports.map((port) => [port, methods])) };
}

/**
 * node-soap on a router of its own (soap.listen mounts on anything with route and use).
 * @param {FloorConfig} config
 * @param {boolean} soap12
 * @returns {Promise<import('express').Router>}
 */
function nodeSoapRouter(config, soap12) {
  const router = express.Router();
  return new Promise((resolve, reject) => {
    soap.listen(router, {
      path: ENDPOINT,
      xml: config.wsdl,
      services: constantServices(config.wsdl, config.result),
      forceSoap12Headers: soap12,
      escapeXML: false,
      useEmptyTag: true,
      enableChunkedEncoding: false,
      callback: (/** @type {unknown} */ error) => (error ? reject(error) : resolve(router)),
    });
  });
}

/** @param {FloorConfig} config */
export async function createFloor(config) {
  const soap11 = await nodeSoapRouter(config, false);
  const soap12 = await nodeSoapRouter(config, true);
  const stringElement = `<?xml version="1.0" encoding="utf-8"?>\n<string xmlns="${config.namespace}">${escapeText(config.result)}</string>`;
  /** @type {import('express').RequestHandler} */
  const answer = (_req, res) => {
    res.set('Cache-Control', 'private, max-age=0').type('text/xml; charset=utf-8').send(stringElement);
  };
  const app = express();
  app.get(`${ENDPOINT}/:operation`, answer);
  app.post(`${ENDPOINT}/:operation`, express.urlencoded({ extended: false }), answer);
  app.use((req, res, next) => ((req.headers['content-type'] ?? '').startsWith('application/soap+xml') ? soap12 : soap11)(req, res, next));
  return app;
}

// Run as a child process: settings from BENCH_FLOOR, the port reported over IPC.
if (process.env.BENCH_FLOOR) {
  /** @type {FloorConfig} */
  const config = JSON.parse(process.env.BENCH_FLOOR);
  listenAsChild(await createFloor(config), config.port, 'floor server');
}
