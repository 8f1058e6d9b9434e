/**
 * The floor of a client attaching to a running supervisor: a bare node
 * process that connects to the supervisor's socket and pipes stdin and
 * stdout through it, nothing else (no replay, no ids, no checks).
 *
 *   node bench/socket-hop.js SOCKET
 *
 * bench/peers.js's cold part starts it against the same kind of running
 * `serve --linger` as the second `--stdio` client it times, so "attach
 * cold start / this" is what hangar's bridge adds to connecting at all.
 */
import net from 'node:net';

const [where] = process.argv.slice(2);
if (where === undefined) {
	process.stderr.write('usage: node bench/socket-hop.js SOCKET\n');
	process.exit(2);
}

const socket = net.createConnection({path: where, allowHalfOpen: true});
socket.setNoDelay?.(true);
process.stdin.pipe(socket);
socket.pipe(process.stdout);
socket.on('close', () => process.exit(0));
socket.on('error', error => {
	process.stderr.write(`socket-hop: ${error.message}\n`);
	process.exit(1);
});
