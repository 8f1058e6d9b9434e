import {describe, expect, it} from 'vitest';
import {HttpWitness} from '../../../../source/core/link/http-witness.js';

const url = new URL('http://127.0.0.1:6000/mcp');

/** What the witness says of a fetch that fails with `cause` (as undici does: TypeError "fetch failed"). */
async function said(cause: Error): Promise<string | undefined> {
	const witness = new HttpWitness();
	witness.watch('streamable-http');
	const failing = witness.wrap(async () => Promise.reject(new TypeError('fetch failed', {cause})), url);
	await expect(failing(url, {method: 'POST'})).rejects.toThrow('fetch failed');
	return witness.said;
}

describe('HttpWitness', () => {
	it('says a blocked port, a redirect loop and a refused connection in words', async () => {
		expect(await said(new Error('bad port'))).toBe('port 6000 is one fetch refuses to connect to (the fetch standard blocks it, as it serves another protocol): run the server on another port');
		expect(await said(new Error('redirect count exceeded'))).toBe('it redirected more than 20 times (a redirect loop): fix the url to the server\'s MCP endpoint itself');
		expect(await said(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6000'), {code: 'ECONNREFUSED'}))).toContain('nothing accepts connections on 127.0.0.1 port 6000 (ECONNREFUSED)');
	});

	it('quotes an error body\'s first line, bounded, and ignores a Streamable HTTP GET answered 405', async () => {
		const witness = new HttpWitness();
		witness.watch('streamable-http');
		const fetch405 = witness.wrap(async () => new Response(null, {status: 405}), url);
		await fetch405(url);
		expect(witness.said).toBeUndefined();
		expect(witness.answered).toBe(true);
		const fetch502 = witness.wrap(async () => new Response(`${'x'.repeat(500)}\nmore`, {status: 502, statusText: 'Bad Gateway'}), url);
		await fetch502(url, {method: 'POST'});
		expect(witness.said).toBe(`the server answered POST with HTTP 502 Bad Gateway: "${'x'.repeat(160)}…" (the server failed: see its own logs)`);
		witness.stop();
		const after = witness.wrap(async () => new Response(null, {status: 404}), url);
		await after(url, {method: 'POST'});
		expect(witness.said).toContain('HTTP 502');
	});
});
