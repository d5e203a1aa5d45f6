import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import { METRICS_PATH, OPS_HEADERS, sendMetrics } from './routes.js';

/**
 * The request listener of the separate metrics port (METRICS_PORT): GET or HEAD /metrics, nothing else, so
 * that the port can be opened to the scraper only while the main port faces the proxy.
 */
export function metricsListener(registry: Registry, logger?: Logger): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    const head = req.method === 'HEAD';
    if (path === METRICS_PATH && (req.method === 'GET' || head)) {
      void sendMetrics(registry, res, head, logger);
      return;
    }
    const status = path === METRICS_PATH ? 405 : 404;
    const body = Buffer.from(status === 405 ? 'method not allowed\n' : 'not found\n', 'utf8');
    res.writeHead(status, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': body.length,
      ...OPS_HEADERS,
      ...(status === 405 ? { Allow: 'GET, HEAD' } : {}),
    });
    res.end(head ? undefined : body);
  };
}
