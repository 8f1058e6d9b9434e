/**
 * Roots through hangar: a client never reaches more than it could
 * directly. server-filesystem scopes itself to its client's roots (it
 * replaces its command-line directories with them once the client declares
 * `roots` and answers roots/list); under the default "instances": "auto"
 * each client session gets an instance of its own, which sees only that
 * client's roots. Checked on a first run and on a warm one (a second
 * supervisor on the same state dir: the tool list and the verdict cached).
 */
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {ListRootsRequestSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, openHangar, root, statusOf, tempDir, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

const filesystemPath = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
afterEach(async () => {
	await closeHangars();
	await stopDaemons();
});

/** An SDK client whose roots are `dir`. */
function rootedClient(name: string, dir: string): Client {
	const client = new Client({name, version: '1.0.0'}, {capabilities: {roots: {listChanged: true}}});
	client.setRequestHandler(ListRootsRequestSchema, () => ({roots: [{uri: pathToFileURL(dir).href, name}]}));
	return client;
}

/** The file's text, or "denied: <why>". */
async function read(client: Client, file: string): Promise<string> {
	const result = (await client.callTool({name: 'fs__read_text_file', arguments: {path: file}})) as CallToolResult;
	const text = result.content.map(part => (part.type === 'text' ? part.text : '')).join('');
	return result.isError === true ? `denied: ${text}` : text;
}

/** Three directories, each with one file that names it: the server's own (command line), b's roots, c's roots. */
function layout() {
	const base = fs.realpathSync(tempDir('hangar-roots-'));
	const dirs = {server: path.join(base, 'server'), b: path.join(base, 'b'), c: path.join(base, 'c')};
	for (const [name, dir] of Object.entries(dirs)) {
		fs.mkdirSync(dir);
		fs.writeFileSync(path.join(dir, 'file.txt'), `${name}'s file`);
	}

	const file = writeConfig(base, {fs: {command: process.execPath, args: [filesystemPath, dirs.server]}}, fastHangar);
	return {dirs, file, at: (name: keyof typeof dirs) => path.join(dirs[name], 'file.txt')};
}

/** Two clients with different roots on one supervisor: each reads its own file only. */
async function checkScopes(setup: ReturnType<typeof layout>): Promise<void> {
	const b = rootedClient('b', setup.dirs.b);
	const c = rootedClient('c', setup.dirs.c);
	await openHangar(setup.file, {client: b, shared: true});
	await openHangar(setup.file, {client: c, shared: true});
	// First the server's own directory, which direct access with roots denies: no instance may act on it.
	expect(await read(b, setup.at('server'))).toMatch(/^denied: .*outside allowed directories/);
	expect(await read(c, setup.at('server'))).toMatch(/^denied: .*outside allowed directories/);
	expect(await read(b, setup.at('b'))).toBe('b\'s file');
	expect(await read(c, setup.at('c'))).toBe('c\'s file');
	expect(await read(c, setup.at('b'))).toMatch(/^denied: /);
	expect(await read(b, setup.at('c'))).toMatch(/^denied: /);
	expect((await statusOf(b, 'fs')).instanceMode).toMatchObject({setting: 'auto', runs: 'per-client', learned: {method: 'roots/list'}});
}

/** A first run on a fresh state dir, checked, then ended: the state dir keeps its tool list and verdict. */
async function firstRun(setup: ReturnType<typeof layout>): Promise<void> {
	const first = await startDaemon(setup.file);
	await checkScopes(setup);
	await closeHangars();
	await first.stop();
}

describe('server-filesystem with different roots per client', () => {
	it('lets no client read outside its own roots, on a first run and on a warm one', async () => {
		const setup = layout();
		await firstRun(setup);
		// Warm: the same state dir, whose tool list and verdict the second supervisor reads at start.
		await startDaemon(setup.file);
		await checkScopes(setup);
	});

	it('two clients whose first calls start a cold upstream whose verdict was forgotten each reach only their own roots', async () => {
		// A warm run whose launch changed (another argument): its tools are cached, its verdict forgotten, and it stays cold until
		// a call. Two clients' first calls start it at once; its roots/list at start-up (two clients' calls waiting) is refused and
		// teaches per-client again; neither call may run on the shared instance, which serves the server's own directory.
		const setup = layout();
		await firstRun(setup);
		const config = JSON.parse(fs.readFileSync(setup.file, 'utf8')) as {mcpServers: {fs: {args: string[]}}};
		config.mcpServers.fs.args.push(setup.dirs.c);
		fs.writeFileSync(setup.file, JSON.stringify(config));
		await startDaemon(setup.file);
		const b = rootedClient('b', setup.dirs.b);
		const c = rootedClient('c', setup.dirs.c);
		await openHangar(setup.file, {client: b, shared: true});
		await openHangar(setup.file, {client: c, shared: true});
		expect((await statusOf(b, 'fs')).state).toBe('cold');
		const [fromB, fromC] = await Promise.all([read(b, setup.at('server')), read(c, setup.at('server'))]);
		expect(fromB).toMatch(/^denied: .*outside allowed directories/);
		expect(fromC).toMatch(/^denied: .*outside allowed directories/);
		expect(await read(b, setup.at('c'))).toMatch(/^denied: /);
		expect(await read(c, setup.at('c'))).toBe('c\'s file');
	});

	it('two clients whose first calls wait for the start that teaches "auto" per-client instances each get their own instance, not the shared one', async () => {
		// An upstream that asks for roots at start-up, before it lists its tools, and whose start (at launch) is slow: both calls
		// wait for that start, its roots/list (two clients' calls in flight) is refused and teaches per-client; each call then runs
		// on its client's own instance, not on the shared one that stops.
		const base = fs.realpathSync(tempDir('hangar-roots-start-'));
		const file = writeConfig(base, {fx: fixture('slow-start', ['--delay-ms', '2500', '--client-features', '--roots-at-start'], {lazy: false, tools: [{name: 'ask'}]})}, fastHangar);
		await startDaemon(file);
		const b = rootedClient('b', path.join(base, 'b'));
		const c = rootedClient('c', path.join(base, 'c'));
		await openHangar(file, {client: b, shared: true});
		await openHangar(file, {client: c, shared: true});
		const rootsOf = async (client: Client) => {
			const result = (await client.callTool({name: 'fx__ask', arguments: {kind: 'roots'}})) as CallToolResult;
			return result.content.map(part => (part.type === 'text' ? part.text : '')).join('');
		};
		const [fromB, fromC] = await Promise.all([rootsOf(b), rootsOf(c)]);
		expect(fromB).toContain(pathToFileURL(path.join(base, 'b')).href);
		expect(fromB).not.toContain(pathToFileURL(path.join(base, 'c')).href);
		expect(fromC).toContain(pathToFileURL(path.join(base, 'c')).href);
		expect(fromC).not.toContain(pathToFileURL(path.join(base, 'b')).href);
		expect((await statusOf(b, 'fx')).instanceMode).toMatchObject({runs: 'per-client'});
	});
});
