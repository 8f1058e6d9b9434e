/**
 * What a client reads on the wire from an upstream directly and through
 * `mcp-hangar --stdio`, message by message: with `"namespace": false` and no
 * management tools hangar adds nothing a client could tell apart (names,
 * results and errors as the upstream gave them), and it sends nothing the
 * upstream did not: no `notifications/tools/list_changed` where the upstream
 * sent none, also when the server runs one instance per client session,
 * whose own list (equal to the one the session saw before it) arrives as it
 * starts.
 */
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, memoryPath, root, tempDir, writeConfig, type ServerEntry} from '../support/hangar.js';
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
});
