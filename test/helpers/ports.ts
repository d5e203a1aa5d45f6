import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/** The lowest port a test takes for itself. */
const FIRST_PORT = 10_000;

/**
 * Where Linux's ephemeral ports begin: it hands them to every outgoing connection (and to listeners on port 0),
 * so that one freed there can be taken a moment later by any connection on the machine, another test's included.
 */
function ephemeralPortsStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether a listener could be opened on the port (and it is closed again). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on the loopback interface that was free a moment ago, for programs that cannot report theirs: drawn
 * below the ephemeral ports, where no connection of a busy machine takes it meanwhile.
 */
export async function freePort(): Promise<number> {
  const end = Math.max(ephemeralPortsStart(), FIRST_PORT + 1000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FIRST_PORT + Math.floor(Math.random() * (end - FIRST_PORT));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port found between ${FIRST_PORT} and ${end}`);
}

/** Resolves with the error code of a new connection (ECONNREFUSED once the listener is closed), or 'connected'. */
export function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
