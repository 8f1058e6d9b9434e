/**
 * A line-reading JSON-RPC client of a stdio command (an upstream directly,
 * or `mcp-hangar --stdio`): every message it got, in order. For what the SDK
 * client cannot judge: progress that arrives with its result, lines over
 * its 10 MiB read buffer.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import readline from 'node:readline';

export type RawMessage = {
	id?: string | number;
	method?: string;
	params?: Record<string, unknown>;
	result?: Record<string, unknown>;
	error?: {code: number; message: string; data?: Record<string, unknown>};
};

const children: ChildProcess[] = [];

/** Ends every session's process: call it after each test. */
export function stopRawSessions(): void {
	for (const child of children.splice(0)) child.kill();
}

/** Spawns `node ...args`, initializes (asking for `protocolVersion`, default 2025-11-25), and returns a request function and the messages received so far. */
export async function rawSession(args: string[], options: {protocolVersion?: string; clientInfo?: {name: string; version: string}; env?: Record<string, string>} = {}) {
	const child = spawn(process.execPath, args, {stdio: ['pipe', 'pipe', 'ignore'], env: options.env === undefined ? undefined : {...process.env, ...options.env}});
	children.push(child);
	const received: RawMessage[] = [];
	const waiting = new Map<string | number, (message: RawMessage) => void>();
	readline.createInterface({input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY}).on('line', line => {
		const message = JSON.parse(line) as RawMessage;
		received.push(message);
		if (message.id !== undefined && message.method === undefined) waiting.get(message.id)?.(message);
	});
	const request = async (id: string | number, method: string, params: Record<string, unknown>) =>
		new Promise<RawMessage>(resolve => {
			waiting.set(id, resolve);
			child.stdin!.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`);
		});
	const initialized = await request('init', 'initialize', {protocolVersion: options.protocolVersion ?? '2025-11-25', capabilities: {}, clientInfo: options.clientInfo ?? {name: 'raw', version: '1'}});
	child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
	return {request, received, initialized};
}
