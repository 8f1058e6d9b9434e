/**
 * An upstream that answers a request in flight with a message that breaks
 * the protocol ("result": null, both "result" and "error", an error without
 * an integer code and a message) fails that request at once, saying what was
 * wrong and what to do, instead of the request waiting out its deadline.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {parseConfig} from '../../source/core/config/read-config.js';
import {UpstreamConnection} from '../../source/core/link/connection.js';
import {LogBuffer} from '../../source/core/link/log-buffer.js';

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) fs.rmSync(dir, {recursive: true, force: true});
});

/** A stdio upstream: initialize answered with `init` (a JSON text), tools/call with `call`. */
function server(init: string, call: string, callPrefix = ''): string {
	return `
let buf = '';
const out = (o, prefix = '') => process.stdout.write(prefix + JSON.stringify(o) + '\\n');
process.stdin.on('data', d => { buf += d; let i; while ((i = buf.indexOf('\\n')) >= 0) { const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
  if (m.method === 'initialize') out({jsonrpc: '2.0', id: m.id, ...${init}});
  else if (m.method === 'tools/call') out({jsonrpc: '2.0', id: m.id, ...${call}}, ${JSON.stringify(callPrefix)});
  else if (m.id !== undefined && m.method) out({jsonrpc: '2.0', id: m.id, result: {}});
} });
process.stdin.on('end', () => process.exit(0));
`;
}

const goodInit = `{result: {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'p', version: '1'}}}`;

async function open(init: string, call = '{result: {content: []}}', callPrefix = ''): Promise<{connection: UpstreamConnection; log: LogBuffer}> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-malformed-'));
	dirs.push(dir);
	const config = parseConfig({mcpServers: {broken: {command: process.execPath, args: ['-e', server(init, call, callPrefix)], startTimeoutSeconds: 30}}}, path.join(dir, 'config.json'), {stateDir: dir});
	const log = new LogBuffer(100);
	const connection = await UpstreamConnection.open(config.servers[0]!, log, {onClose() {}, onToolsChanged() {}}, AbortSignal.timeout(30_000), 500, undefined, 'legacy');
	return {connection, log};
}

describe('malformed answers', () => {
	it.each([
		['{result: null}', 'answered tools/call with "result": null, which is not an object'],
		['{result: "str"}', 'answered tools/call with "result": "str", which is not an object'],
		['{result: {content: []}, error: {code: 1, message: "x"}}', 'answered tools/call with both "result" and "error"'],
		['{error: {code: "abc"}}', 'answered tools/call with "error": {"code":"abc"}, which is not an object with an integer "code" and a string "message"'],
	])('fails a call answered with %s at once, saying what was wrong and what to do', async (call, fault) => {
		const {connection, log} = await open(goodInit, call);
		try {
			const began = Date.now();
			const error = await connection.callTool('echo', {}, {timeoutMs: 60_000}).then(
				() => undefined,
				(error: unknown) => error as Error,
			);
			expect(Date.now() - began).toBeLessThan(30_000);
			expect(error?.message).toContain(fault);
			expect(error?.message).toContain('The server is broken: report it to its authors, or quarantine it (mcp-hangar quarantine broken)');
			expect(log.tail(10, 'stdout').map(line => line.text)).toEqual([expect.stringContaining('not JSON-RPC (its request fails: Invalid Request')]);
		} finally {
			await connection.close(500);
		}
	});

	it('fails a call whose malformed answer starts with a byte order mark (the rule allows one) the same way, and goes on', async () => {
		const {connection} = await open(goodInit, '{result: null}', '\uFEFF');
		try {
			const error = await connection.callTool('echo', {}, {timeoutMs: 60_000}).then(
				() => undefined,
				(error: unknown) => error as Error,
			);
			expect(error?.message).toContain('answered tools/call with "result": null, which is not an object');
		} finally {
			await connection.close(500);
		}
	});

	it('fails the start when initialize is answered with "result": null, saying so', async () => {
		const error = await open('{result: null}').then(
			async ({connection}) => {
				await connection.close(500);
				return undefined;
			},
			(error: unknown) => error as Error,
		);
		expect(error?.message).toContain('answered initialize with "result": null, which is not an object');
	});
});
