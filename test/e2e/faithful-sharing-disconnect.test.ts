/**
 * A client that goes away while an upstream's request to it is pending,
 * with another client on the same shared instance: its request fails at
 * once (a client whose input has ended can send no answer), so the call it
 * belonged to ends and stops counting as in flight, and the other client's
 * requests reach it again instead of being refused as "calls of 2 clients".
 * The built daemon, a real SDK client on a `--stdio` bridge, and a client
 * on the local socket that closes its side the way a killed bridge does.
 */
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {CreateMessageRequestSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, openHangar, root, tempDir, writeConfig} from '../support/hangar.js';
import {startDaemon, stopDaemons} from '../support/serve.js';

type Message = {id?: string | number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: {message: string}};

const sockets: net.Socket[] = [];
afterEach(async () => {
	for (const socket of sockets.splice(0)) socket.destroy();
	await closeHangars();
	await stopDaemons('SIGKILL');
});

/** A JSON-RPC client on the supervisor's socket: what it sent, and a wait for a message it receives. */
async function socketClient(socketPath: string) {
	const socket = net.createConnection(socketPath);
	sockets.push(socket);
	await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
	const received: Message[] = [];
	const waiters: Array<{match: (message: Message) => boolean; resolve: (message: Message) => void}> = [];
	let ended = false;
	const failAll = () => {
		ended = true;
		for (const waiter of waiters.splice(0)) waiter.resolve({error: {message: 'the supervisor closed the connection without sending it'}});
	};

	socket.once('end', failAll);
	socket.once('close', failAll);
	readline.createInterface({input: socket}).on('line', line => {
		const message = JSON.parse(line) as Message;
		received.push(message);
		for (const waiter of waiters.filter(waiter => waiter.match(message))) {
			waiters.splice(waiters.indexOf(waiter), 1);
			waiter.resolve(message);
		}
	});
	const next = async (match: (message: Message) => boolean) =>
		received.find(match) ?? (ended ? {error: {message: 'the supervisor closed the connection without sending it'}} : new Promise<Message>(resolve => waiters.push({match, resolve})));
	const send = (message: Record<string, unknown>) => socket.write(`${JSON.stringify({jsonrpc: '2.0', ...message})}\n`);
	return {socket, send, next};
}

describe('a client that closes its connection while an upstream asks it something', () => {
	it('fails that request at once, so its call ends and the other client of the shared instance is answered again', async () => {
		const dir = tempDir();
		const probe = {command: process.execPath, args: [path.join(root, 'dist', 'demo', 'probe-server.js')], instances: 'shared'};
		const file = writeConfig(dir, {probe}, fastHangar);
		await startDaemon(file);
		const bob = new Client({name: 'bob', version: '1.0.0'}, {capabilities: {sampling: {}}});
		bob.setRequestHandler(CreateMessageRequestSchema, () => ({role: 'assistant', content: {type: 'text', text: 'bob'}, model: 'bob'}));
		await openHangar(file, {client: bob, shared: true});

		const ada = await socketClient(path.join(dir, 'state', 'hangar.sock'));
		ada.send({id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {elicitation: {}}, clientInfo: {name: 'ada', version: '1.0.0'}}});
		expect((await ada.next(message => message.id === 1)).result).toBeDefined();
		ada.send({method: 'notifications/initialized'});
		ada.send({id: 2, method: 'tools/call', params: {name: 'probe__ask', arguments: {kind: 'elicitation', tag: 'ada'}}});
		// The upstream asks ada during her call; she closes her side instead of answering.
		await ada.next(message => message.method === 'elicitation/create');
		ada.socket.end();

		// Her call is answered (she can still read): the upstream was told at once that she cannot answer.
		const answer = await ada.next(message => message.id === 2);
		const outcome = (answer.result as CallToolResult | undefined)?.structuredContent as {tag: string; error?: {message: string}} | undefined;
		expect(outcome?.tag).toBe('ada');
		expect(outcome?.error?.message).toMatch(/client closed its connection before answering.*"ada"/);

		// Her call no longer counts as in flight: bob's request on the shared instance is his, not refused.
		const bobs = await bob.callTool({name: 'probe__ask', arguments: {kind: 'sampling', tag: 'bob'}});
		expect((bobs.structuredContent as {result?: {model?: string}; error?: unknown}).result?.model).toBe('bob');
	});
});
