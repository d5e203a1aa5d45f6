import type { ServerResponse } from 'node:http';
import express, { type Router } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import type { Readiness } from './readiness.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

export interface OpsDeps {
  /** Whether the instance should get traffic; /readyz answers 503 with the reason when it should not. */
  readiness: () => Promise<Readiness>;
  /** Served at /metrics on the main port when given (metrics enabled and no METRICS_PORT). */
  metrics?: Registry | undefined;
}

/** What every ops answer carries: no proxy or browser may cache it or read it as another type. */
export const OPS_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;

/** Short plain-text answers. */
function sendText(res: ServerResponse, status: number, text: string, head: boolean): void {
  const body = Buffer.from(`${text}\n`, 'utf8');
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length, ...OPS_HEADERS });
  res.end(head ? undefined : body);
}

/** The registry in Prometheus' text format; used by the main app and by the separate metrics listener. */
export async function sendMetrics(registry: Registry, res: ServerResponse, head: boolean, logger?: Logger): Promise<void> {
  let text: string;
  try {
    text = await registry.metrics();
  } catch (error) {
    logger?.error('metrics: collecting failed', { error: error instanceof Error ? error.message : String(error) });
    return sendText(res, 500, 'error', head);
  }
  const body = Buffer.from(text, 'utf8');
  res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': body.length, ...OPS_HEADERS });
  res.end(head ? undefined : body);
}

/**
 * /healthz (the process is alive and serving), /readyz (it should get traffic) and, when configured,
 * /metrics. GET and HEAD only; mounted at the root, not under BASE_PATH, where orchestrators and
 * scrapers look for them.
 */
export function createOpsRouter({ readiness, metrics }: OpsDeps, logger?: Logger): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.get(HEALTH_PATH, (req, res) => sendText(res, 200, 'ok', req.method === 'HEAD'));
  router.get(READY_PATH, async (req, res) => {
    const result = await readiness();
    sendText(res, result.ready ? 200 : 503, result.ready ? 'ok' : result.reason, req.method === 'HEAD');
  });
  if (metrics) router.get(METRICS_PATH, (req, res) => sendMetrics(metrics, res, req.method === 'HEAD', logger));
  return router;
}
