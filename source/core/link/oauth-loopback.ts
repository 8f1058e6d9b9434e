/**
 * The redirect target of a sign-in: an HTTP listener on 127.0.0.1 (never
 * another interface) at a random port, or the port a client was registered
 * with when it is free. It takes one callback whose `state` matches, holds
 * the browser's request open until the code is redeemed, then answers with
 * a page that says what happened and that the window can be closed.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';

export type Callback = {code: string; iss: string | undefined};

const page = (ok: boolean, message: string) => {
	const text = message.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
	return `<!doctype html><html><head><meta charset="utf-8"><title>mcp-hangar: ${ok ? 'signed in' : 'sign-in failed'}</title></head><body style="font-family:sans-serif;margin:3em"><h1>${ok ? 'Signed in' : 'Sign-in failed'}</h1><p>${text}</p></body></html>`;
};

export class LoopbackListener {
	private pending: http.ServerResponse | undefined;
	private waiter: {state: string; resolve: (callback: Callback) => void; reject: (error: Error) => void} | undefined;

	private constructor(
		private readonly server: http.Server,
		readonly redirectUri: string,
	) {
		server.on('request', (request, response) => this.onRequest(request, response));
	}

	/** Listens on 127.0.0.1 at `port` when it is free (0 or taken: a random port). */
	static async open(port: number): Promise<LoopbackListener> {
		const listen = async (at: number) =>
			new Promise<http.Server>((resolve, reject) => {
				const server = http.createServer();
				server.once('error', reject);
				server.listen(at, '127.0.0.1', () => {
					server.off('error', reject);
					resolve(server);
				});
			});
		const server = await listen(port).catch(async () => listen(0));
		const {port: bound} = server.address() as AddressInfo;
		return new LoopbackListener(server, `http://127.0.0.1:${bound}/callback`);
	}

	/** The callback with this `state`: its code and `iss`; rejects on the server's error answer or after `timeoutMs`. */
	async wait(state: string, timeoutMs: number): Promise<Callback> {
		return new Promise<Callback>((resolve, reject) => {
			const timer = setTimeout(() => {
				this.waiter = undefined;
				reject(new Error(`no redirect came back within ${Math.round(timeoutMs / 1000)} s: run mcp-hangar auth again and finish the sign-in in the browser`));
			}, timeoutMs);
			this.waiter = {
				state,
				resolve: callback => {
					clearTimeout(timer);
					resolve(callback);
				},
				reject: error => {
					clearTimeout(timer);
					reject(error);
				},
			};
		});
	}

	/** Answers the held browser request with what happened. */
	finish(ok: boolean, message: string): void {
		const response = this.pending;
		this.pending = undefined;
		if (response === undefined) return;
		response.writeHead(ok ? 200 : 400, {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store'});
		response.end(page(ok, message));
	}

	async close(): Promise<void> {
		this.finish(false, 'The sign-in was abandoned. You can close this window.');
		await new Promise<void>(resolve => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}

	private onRequest(request: http.IncomingMessage, response: http.ServerResponse): void {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		const answer = (status: number, message: string) => {
			response.writeHead(status, {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store'});
			response.end(page(false, message));
		};

		if (url.pathname !== '/callback') {
			answer(404, 'This is mcp-hangar\'s sign-in listener; nothing is here.');
			return;
		}

		const waiter = this.waiter;
		if (waiter === undefined || url.searchParams.get('state') !== waiter.state) {
			// A redirect hangar did not start (or one already used): never redeemed, so a forged one achieves nothing.
			answer(400, 'This redirect does not belong to the sign-in mcp-hangar is waiting for. You can close this window.');
			return;
		}

		this.waiter = undefined;
		const error = url.searchParams.get('error');
		if (error !== null) {
			const description = url.searchParams.get('error_description');
			const message = `the authorization server answered ${error}${description === null ? '' : `: ${description}`}`;
			answer(400, `Signing in failed: ${message}. You can close this window; see the terminal.`);
			waiter.reject(new Error(message));
			return;
		}

		const code = url.searchParams.get('code');
		if (code === null) {
			answer(400, 'The redirect carried no authorization code. You can close this window; see the terminal.');
			waiter.reject(new Error('the redirect carried no authorization code'));
			return;
		}

		this.pending = response;
		waiter.resolve({code, iss: url.searchParams.get('iss') ?? undefined});
	}
}
