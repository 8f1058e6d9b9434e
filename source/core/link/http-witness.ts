/**
 * What a remote upstream's HTTP layer did while hangar tried to open a
 * session, in words: the SDK reports a failed open by its own codes
 * (ERA_NEGOTIATION_FAILED, CLIENT_HTTP_NOT_IMPLEMENTED) that hide whether
 * hangar reached the server at all. The witness wraps fetch and keeps the
 * first thing that went wrong: an HTTP status that is an error (with the
 * first line of its body, escaped and bounded), a redirect, or a network
 * failure said plainly (refused, no such host, a port fetch will not use,
 * too many redirects).
 */
import {maskText} from '../base/secret-mask.js';
import {terminalText} from '../base/terminal-text.js';

/** The most characters of an error body's first line quoted. */
const bodyLineChars = 160;
/** How many redirects fetch follows before it gives up (the fetch standard's limit). */
const maxRedirects = 20;

/** What fetch's own failures (a TypeError "fetch failed" with a cause) mean, and what to do. */
function networkFailure(error: unknown, url: URL): string | undefined {
	const causes: string[] = [];
	const codes: string[] = [];
	let current: unknown = error;
	for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
		const record = current as {message?: unknown; code?: unknown; cause?: unknown};
		if (typeof record.message === 'string') causes.push(record.message);
		if (typeof record.code === 'string') codes.push(record.code);
		current = record.cause;
	}

	const said = causes.join(' ');
	const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
	if (/redirect count exceeded/i.test(said)) return `it redirected more than ${maxRedirects} times (a redirect loop): fix the url to the server's MCP endpoint itself`;
	if (/bad port/i.test(said)) return `port ${port} is one fetch refuses to connect to (the fetch standard blocks it, as it serves another protocol): run the server on another port`;
	const code = codes.find(candidate => /^E[A-Z]+$/.test(candidate));
	if (code === 'ECONNREFUSED') return `nothing accepts connections on ${url.hostname} port ${port} (ECONNREFUSED): start the server, or fix the url`;
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name ${url.hostname} does not resolve (${code}): fix the url, or check DNS`;
	if (code === 'ETIMEDOUT' || code === 'ECONNRESET') return `the connection to ${url.hostname} port ${port} failed (${code}): check that the server is reachable`;
	return undefined;
}

export class HttpWitness {
	private seen: string | undefined;
	private watching = false;
	/** A Streamable HTTP attempt: its GET stream is optional, so a GET answered 405 is no failure. */
	private streamable = false;
	private heard = false;

	/** Whether the server answered HTTP at all during the attempt (hangar did connect). */
	get answered(): boolean {
		return this.heard;
	}

	/** What went wrong first since `watch`, in words (undefined: nothing the HTTP layer saw). */
	get said(): string | undefined {
		return this.seen;
	}

	/** Starts watching an attempt to open a session over `kind`, forgetting the last. */
	watch(kind: 'streamable-http' | 'sse'): void {
		this.seen = undefined;
		this.heard = false;
		this.streamable = kind === 'streamable-http';
		this.watching = true;
	}

	/** The session is open (or the attempt over): the requests that follow are not watched. */
	stop(): void {
		this.watching = false;
	}

	/** `base`, watched while an attempt is. */
	wrap(base: typeof fetch, url: URL): typeof fetch {
		return async (input, init) => {
			if (!this.watching) return base(input, init);
			let response: Response;
			try {
				response = await base(input, init);
			} catch (error) {
				this.seen ??= networkFailure(error, url);
				throw error;
			}

			this.heard = true;
			const method = init?.method ?? 'GET';
			if (this.seen === undefined && response.status >= 300 && !(this.streamable && method === 'GET' && response.status === 405)) this.seen = await describeStatus(response, method, requestUrl(input));
			return response;
		};
	}
}

/** The first `max` bytes of a response's body as text, waiting at most `waitMs` for them (a body may never end). */
async function bodyStart(response: Response, max = 4096, waitMs = 2000): Promise<string> {
	const reader = response.clone().body?.getReader();
	if (reader === undefined) return '';
	const chunks: Uint8Array[] = [];
	let length = 0;
	const timer = setTimeout(() => void reader.cancel().catch(() => {}), waitMs);
	try {
		while (length < max) {
			const {done, value} = await reader.read();
			if (done) break;
			chunks.push(value);
			length += value.length;
		}
	} catch {
		// Cut off by the wait: what came is enough.
	} finally {
		clearTimeout(timer);
		void reader.cancel().catch(() => {});
	}

	return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** The URL a fetch asked for. */
function requestUrl(input: Parameters<typeof fetch>[0]): string {
	return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

async function describeStatus(response: Response, method: string, url: string): Promise<string> {
	const status = `HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
	if (response.status >= 300 && response.status < 400) {
		const location = response.headers.get('location');
		const target = location === null ? undefined : URL.parse(location, url)?.href;
		if (target === new URL(url).href) return `the server answered ${method} with a redirect to the same url (${status}), a redirect loop: set the url to the server's MCP endpoint itself`;
		return `the server answered ${method} with a redirect (${status}${location === null ? '' : ` to ${terminalText(maskText(location.slice(0, bodyLineChars)))}`}) that was not followed: set the url to where it redirects`;
	}

	const line = (await bodyStart(response)).split(/\r?\n/).find(candidate => candidate.trim() !== '')?.trim() ?? '';
	const quoted = line === '' ? ' with an empty body' : `: "${terminalText(line.slice(0, bodyLineChars))}${line.length > bodyLineChars ? '…' : ''}"`;
	const what = response.status >= 500 ? 'the server failed: see its own logs' : response.status === 404 ? 'nothing is served at that path: check the url' : 'check the url and the headers in its config entry';
	return `the server answered ${method} with ${status}${quoted} (${what})`;
}
