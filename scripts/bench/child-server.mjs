// @ts-check
/**
 * How the bench's own servers (the reference and the floor) run as its child processes: on the loopback
 * interface with the service's keep-alive timeout, their port reported to the bench over IPC, and stopped
 * on SIGTERM or SIGINT or when the bench goes away.
 */
import { createServer } from 'node:http';

/**
 * @param {import('node:http').RequestListener} listener
 * @param {number} port 0 for any free port
 * @param {string} label what it is, when run by hand
 */
export function listenAsChild(listener, port, label) {
  // The same keep-alive timeout as the service (src/server.ts), so that connections live alike.
  const server = createServer({ keepAliveTimeout: 15_000 }, listener);
  server.listen(port, '127.0.0.1', () => {
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : 0;
    if (process.send) process.send({ port: bound });
    else console.log(`${label} on http://127.0.0.1:${bound}/Authentication.asmx`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
}
