/**
 * An HTTP front for `mcp-hangar --stdio`, so the conformance suite (which
 * speaks only Streamable HTTP) can be run against hangar's stdio endpoint:
 * each HTTP session spawns `mcp-hangar --stdio --config FILE` (a bridge to
 * the supervisor already running that config) and relays JSON-RPC both ways.
 * What the process sends goes on the event stream of the request it belongs
 * to, as an SDK server ties what a handler sends to its request: an answer
 * on its request's stream, progress on the stream of the request that gave
 * its token, anything else (log messages, sampling and elicitation requests)
 * on the stream of the newest request in flight, if any. The next session's
 * process is started ahead, so a session does not wait for Node to start.
 */
import {spawn, type ChildProcessByStdio} from 'node:child_process';
import type {Readable, Writable} from 'node:stream';
import {ReadBuffer, serializeMessage, type JSONRPCMessage, type WebStandardStreamableHTTPServerTransport} from '@modelcontextprotocol/server';
import {serveSessions} from '../../source/demo/web-http.js';
import {cliPath, spawnEnv} from './hangar.js';

type Id = string | number;

type Bridge = ChildProcessByStdio<Writable, Readable, null>;

const serving: Array<() => Promise<void>> = [];

/** Serves `mcp-hangar --stdio --config configFile` (each process tagged `tag`) over Streamable HTTP on loopback; resolves with its URL. */
export async function serveStdioOverHttp(configFile: string, tag: string): Promise<string> {
	const start = (): Bridge => spawn(process.execPath, [cliPath, '--stdio', '--config', configFile], {env: spawnEnv({HANGAR_TEST_TAG: tag}), stdio: ['pipe', 'pipe', 'ignore']});
	let next = start();
	const {url, close} = await serveSessions(
		0,
		async transport => {
			const child = next;
			next = start();
			await relay(transport, child);
		},
		'stdio-adapter',
	);
	serving.push(async () => {
		next.stdin.end();
		await close();
	});
	return url;
}

/** Ends every adapter's sessions (so their `--stdio` processes see stdin end) and stops serving (an afterEach hook). */
export async function stopStdioAdapters(): Promise<void> {
	await Promise.all(serving.splice(0).map(async close => close()));
}

async function relay(transport: WebStandardStreamableHTTPServerTransport, child: Bridge): Promise<void> {
	const lines = new ReadBuffer();
	const inFlight: Id[] = [];
	const byToken = new Map<unknown, Id>();
	const settle = (id: Id) => {
		const at = inFlight.indexOf(id);
		if (at !== -1) inFlight.splice(at, 1);
		for (const [token, owner] of byToken) if (owner === id) byToken.delete(token);
	};

	const deliver = (message: JSONRPCMessage) => {
		const record = message as {id?: Id; method?: string; params?: {progressToken?: unknown}};
		let related: Id | undefined;
		if (record.method === undefined && record.id !== undefined) {
			related = record.id;
			settle(record.id);
		} else {
			related = (record.method === 'notifications/progress' ? byToken.get(record.params?.progressToken) : undefined) ?? inFlight.at(-1);
		}

		transport.send(message, related === undefined ? undefined : {relatedRequestId: related}).catch(() => {});
	};

	child.stdout.on('data', (chunk: Buffer) => {
		lines.append(chunk);
		for (let message = lines.readMessage(); message !== null; message = lines.readMessage()) deliver(message);
	});
	child.on('exit', () => {
		transport.close().catch(() => {});
	});
	transport.onmessage = message => {
		const record = message as {id?: Id; method?: string; params?: {_meta?: {progressToken?: unknown}}};
		if (record.method !== undefined && record.id !== undefined) {
			inFlight.push(record.id);
			const token = record.params?._meta?.progressToken;
			if (token !== undefined) byToken.set(token, record.id);
		}

		child.stdin.write(serializeMessage(message));
	};
	const forget = transport.onclose;
	transport.onclose = () => {
		forget?.();
		child.stdin.end();
	};
	await transport.start();
}
