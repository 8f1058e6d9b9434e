/**
 * Where a minimal hop (bench/hop.js, bench/supervised-hop.js) meets its
 * client: stdin and stdout, or with `--listen SOCKET` the first connection
 * to that Unix socket (it prints `listening` once the socket accepts).
 */
import net from 'node:net';

export function serveClient(listenAt, serve) {
	if (listenAt === undefined) {
		serve(process.stdin, process.stdout);
		return;
	}

	const server = net.createServer({allowHalfOpen: true}, socket => {
		server.close();
		socket.setNoDelay?.(true);
		serve(socket, socket);
	});
	server.listen(listenAt, () => process.stdout.write('listening\n'));
}
