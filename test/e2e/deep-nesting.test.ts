/**
 * An upstream whose answers are nested 100,000 levels deep (JSON.parse takes
 * them; a recursive walk or JSON.stringify overflows the stack): hangar
 * answers each call with an error that names the upstream, the operation and
 * what happened, and keeps serving. Real processes: the built hangar
 * (`--stdio --standalone`, `serve --http`) and a small upstream written by the test.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fastHangar, tempDir, writeConfig} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {rawSession, stopRawSessions} from '../support/raw-session.js';

afterEach(async () => {
	stopRawSessions();
	await stopHttpHangars();
});

/** Answers tools/call `deep-result` with a deep structuredContent, `deep-error` with a deep error data, anything else with "ok". */
const upstream = String.raw`
import {createInterface} from 'node:readline';
const deep = '['.repeat(100000) + '1' + ']'.repeat(100000);
const send = line => process.stdout.write(line + '\n');
createInterface({input: process.stdin}).on('line', line => {
	const m = JSON.parse(line);
	if (m.id === undefined) return;
	const id = JSON.stringify(m.id);
	if (m.method === 'initialize') send(JSON.stringify({jsonrpc: '2.0', id: m.id, result: {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'deep', version: '1'}}}));
	else if (m.method === 'tools/list') send(JSON.stringify({jsonrpc: '2.0', id: m.id, result: {tools: ['deep-result', 'deep-error', 'fine'].map(name => ({name, inputSchema: {type: 'object'}}))}}));
	else if (m.params?.name === 'deep-result') send('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":' + deep + '}}}');
	else if (m.params?.name === 'deep-error') send('{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-31999,"message":"deep","data":' + deep + '}}');
	else send(JSON.stringify({jsonrpc: '2.0', id: m.id, result: {content: [{type: 'text', text: 'ok'}]}}));
});
`;

/** A config with the deep upstream as "deep". */
function deepConfig(): string {
	const dir = tempDir();
	const script = path.join(dir, 'deep-upstream.mjs');
	fs.writeFileSync(script, upstream);
	return writeConfig(dir, {deep: {command: process.execPath, args: [script]}}, fastHangar);
}

describe('an upstream that answers with JSON nested 100,000 levels deep', () => {
	it('gets its calls answered with errors that say so, and hangar keeps serving', async () => {
		const config = deepConfig();
		const {request} = await rawSession([cliPath, '--stdio', '--standalone', '--config', config]);

		// A result hangar cannot write as JSON: an error naming the upstream, the tool and why, not "Maximum call stack size exceeded" alone.
		const result = await request(1, 'tools/call', {name: 'deep__deep-result', arguments: {}});
		expect(result.error?.code).toBe(-32_603);
		expect(result.error?.message).toMatch(/^upstream "deep": tools\/call "deep-result" failed: its answer could not be written as JSON .*nested too deeply.*the upstream must answer with JSON nested less deeply/);
		expect(result.error?.data).toMatchObject({error: 'AnswerNotWritable', upstream: 'deep'});

		// The upstream's own error is forwarded with its code; its data is kept down to 512 levels, the rest replaced by a note.
		const error = await request(2, 'tools/call', {name: 'deep__deep-error', arguments: {}});
		expect(error.error?.code).toBe(-31_999);
		expect(error.error?.message).toBe('upstream "deep": tools/call "deep-error" failed: deep');
		expect(JSON.stringify(error.error?.data)).toContain('nested deeper than 512 levels: left out');

		expect(await request(3, 'tools/call', {name: 'deep__fine', arguments: {}})).toMatchObject({result: {content: [{type: 'text', text: 'ok'}]}});
	});

	it('gets the same error over serve --http, whose answers go out on an event stream', async () => {
		const served = await serveHttp(deepConfig());
		const {client} = await connectHttp(served.url);
		await expect(client.callTool({name: 'deep__deep-result', arguments: {}})).rejects.toThrow(/upstream "deep": tools\/call "deep-result" failed: its answer could not be written as JSON/);
		expect(await client.callTool({name: 'deep__fine', arguments: {}})).toMatchObject({content: [{type: 'text', text: 'ok'}]});
		await client.close();
	});
});
