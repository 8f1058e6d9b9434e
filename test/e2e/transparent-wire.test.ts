/**
 * What a client reads on the wire from an upstream directly and through
 * `mcp-hangar --stdio`, message by message: with `"namespace": false` and no
 * management tools hangar adds nothing a client could tell apart (names,
 * results and errors as the upstream gave them), and it sends nothing the
 * upstream did not: no `notifications/tools/list_changed` where the upstream
 * sent none, also when the server runs one instance per client session,
 * whose own list (equal to the one the session saw before it) arrives as it
 * starts. And where the docs say hangar answers otherwise (docs/protocol.md,
 * "Errors from upstreams and from hangar"), it does, and nowhere else.
 */
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, everythingPath, memoryPath, root, tempDir, writeConfig, type ServerEntry} from '../support/hangar.js';
import {rawSession, stopRawSessions, type RawMessage} from '../support/raw-session.js';

afterEach(() => stopRawSessions());

const filesystemPath = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

/** What a session received apart from its answers' ids (hangar's request ids are the client's own). */
const withoutIds = (messages: RawMessage[]) => messages.map(({id: _id, ...rest}) => rest);

/** The same requests, in order, to the upstream itself and through hangar; returns every message each got. */
async function sideBySide(upstream: {args: string[]; env?: (side: string) => Record<string, string>}, instances: 'shared' | 'per-client', requests: Array<[string, Record<string, unknown>]>) {
	const dir = tempDir();
	const entry: ServerEntry = {command: process.execPath, args: upstream.args, env: upstream.env?.('hangar'), namespace: false, instances};
	const config = writeConfig(dir, {up: entry}, {managementTools: 'none', firstListWaitSeconds: 10});
	const direct = await rawSession(upstream.args, {env: upstream.env?.('direct')});
	const hangar = await rawSession([cliPath, '--stdio', '--standalone', '--config', config]);
	for (const [index, [method, params]] of requests.entries()) {
		expect(withoutIds([await hangar.request(index, method, params)]), `${method} ${JSON.stringify(params)}`).toEqual(withoutIds([await direct.request(index, method, params)]));
	}

	// Methods of capabilities the upstream does not offer (nor hangar, in front of it): not found, on a first run too.
	for (const [index, method] of ['resources/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete'].entries()) {
		const params = {uri: 'file:///x', name: 'x', ref: {type: 'ref/prompt', name: 'x'}, argument: {name: 'a', value: ''}};
		const own = await direct.request(`absent-${index}`, method, params);
		if (own.error?.code !== -32_601) continue;
		expect((await hangar.request(`absent-${index}`, method, params)).error?.code, method).toBe(-32_601);
	}

	return {direct: direct.received, hangar: hangar.received, config};
}

const notifications = (messages: RawMessage[]) => messages.filter(message => message.method !== undefined && message.id === undefined).map(message => message.method);

describe('an upstream directly and through hangar, on the wire', () => {
	for (const instances of ['shared', 'per-client'] as const) {
		it(`server-filesystem (${instances}): the same lists, results and tool errors, and no list_changed the upstream did not send`, async () => {
			const folder = tempDir();
			const requests: Array<[string, Record<string, unknown>]> = [
				['tools/list', {}],
				['tools/call', {name: 'list_allowed_directories', arguments: {}}],
				['tools/call', {name: 'list_directory', arguments: {path: folder}}],
				['tools/call', {name: 'read_text_file', arguments: {path: '/etc/hostname-not-allowed'}}],
				['tools/call', {name: 'read_text_file', arguments: {}}],
				['tools/list', {}],
			];
			const {direct, hangar} = await sideBySide({args: [filesystemPath, folder]}, instances, requests);
			expect(notifications(direct)).toEqual([]);
			// Every answer has arrived, and the instance's own list long before the first tools/list was answered.
			expect(notifications(hangar)).toEqual(notifications(direct));
		});
	}

	it('server-memory (per-client): the same, its own tools\' answers and errors included', async () => {
		const dir = tempDir();
		// Each side its own memory file: each must start empty.
		const env = (side: string) => ({MEMORY_FILE_PATH: path.join(dir, `${side}.jsonl`)});
		const requests: Array<[string, Record<string, unknown>]> = [
			['tools/list', {}],
			['tools/call', {name: 'create_entities', arguments: {entities: [{name: 'a', entityType: 't', observations: ['o']}]}}],
			['tools/call', {name: 'read_graph', arguments: {}}],
			['tools/call', {name: 'create_entities', arguments: {entities: 'not a list'}}],
			['tools/call', {name: 'delete_entities', arguments: {entityNames: ['a']}}],
		];
		const {direct, hangar} = await sideBySide({args: [memoryPath], env}, 'per-client', requests);
		expect(notifications(hangar)).toEqual(notifications(direct));
	});

	it('server-everything: an upstream\'s JSON-RPC error keeps its code and message behind hangar\'s prefix; hangar\'s own checks answer as documented', async () => {
		const dir = tempDir();
		const args = [everythingPath, 'stdio'];
		const config = writeConfig(dir, {up: {command: process.execPath, args, namespace: false, instances: 'shared'}}, {managementTools: 'none', firstListWaitSeconds: 10});
		const direct = await rawSession(args);
		const hangar = await rawSession([cliPath, '--stdio', '--standalone', '--config', config]);
		const both = async (id: number, method: string, params: Record<string, unknown>) => Promise.all([direct.request(id, method, params), hangar.request(id, method, params)]);

		// The upstream's own error: code and data as it said, its message after "upstream "<name>": <method> "<what>" failed: ".
		const [ownRead, viaRead] = await both(1, 'resources/read', {uri: 'demo://no-such-resource'});
		expect(viaRead.error).toEqual({...ownRead.error, message: `upstream "up": resources/read "demo://no-such-resource" failed: ${ownRead.error!.message}`});
		const [ownPrompt, viaPrompt] = await both(2, 'prompts/get', {name: 'args-prompt'});
		expect(viaPrompt.error).toEqual({...ownPrompt.error, message: `upstream "up": prompts/get "args-prompt" failed: ${ownPrompt.error!.message}`});
		// A tool's execution error (isError) is a result, passed through unchanged.
		const [ownSum, viaSum] = await both(3, 'tools/call', {name: 'get-sum', arguments: {a: 'x'}});
		expect(ownSum.result?.['isError']).toBe(true);
		expect(viaSum.result).toEqual(ownSum.result);

		// Hangar's own: an unknown tool is -32602 UnknownTool (the SDK server answers a tool execution error) ...
		const [ownUnknown, viaUnknown] = await both(4, 'tools/call', {name: 'no-such-tool', arguments: {}});
		expect(ownUnknown.result?.['isError']).toBe(true);
		expect(viaUnknown.error).toMatchObject({code: -32_602, data: {error: 'UnknownTool', tool: 'no-such-tool'}});
		// ... params of the wrong shape are -32602 (the SDK server answers -32603 with its validator's dump) ...
		const [ownShape, viaShape] = await both(5, 'tools/call', {name: 'echo', arguments: 'not an object'});
		expect(ownShape.error?.code).toBe(-32_603);
		expect(viaShape.error?.code).toBe(-32_602);
		// ... and a list cursor hangar did not give is -32602 (the SDK server ignores it and answers the first page).
		const [ownCursor, viaCursor] = await both(6, 'resources/list', {cursor: 'not-a-cursor'});
		expect(ownCursor.result?.['resources']).toBeDefined();
		expect(viaCursor.error).toMatchObject({code: -32_602, data: {error: 'InvalidCursor'}});
	});
});
