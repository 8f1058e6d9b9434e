/**
 * The CLI's way into a running supervisor (`mcp-hangar tui` or `serve`):
 * an MCP client session on the local socket, so `status`, `call`, `approve`
 * and `quarantine` show and change the live state. Reads and calls go
 * through the same management tools any client uses (hangar_list,
 * hangar_call); a person's approve and quarantine use the socket-only
 * `hangar/command` request, which the `--stdio` bridge never forwards from
 * an MCP client. It says it is a person's session first (`hangar/person`), so
 * hangar.managementTools, which is for MCP clients, does not narrow it.
 *
 * It needs only the wire and the socket's client side: the engine's types
 * below are imported as types, which compile to nothing.
 */
import net from 'node:net';
import {Client, ProtocolError, SdkError, SdkErrorCode, type CallToolResult} from '@modelcontextprotocol/client';
import {z} from 'zod';
import type {CallsPage, ConfigAnswer, LogPage} from '../gateway/admin-methods.js';
import {LineTransport} from '../wire/line-transport.js';
import {callsMethod, cliClientName, personActionMethod, signInMethod, configMethod, implementationInfo, logsMethod, maxListLimit, personMethod, shutdownMethod} from '../wire/protocol.js';
import type {HangarConfig} from '../config/read-config.js';
import {attachToSupervisor, type EndpointOwner} from './socket-client.js';
import {supervisorLost} from './supervisor-lost.js';
import type {StatusEntry} from '../views/views.js';
import type {StatusPage} from '../gateway/management-tools.js';
import type {PersonAction} from '../engine/supervisor.js';
import type {SignInStart} from '../engine/sign-in-start.js';

const commandResult = z.object({message: z.string()});
const emptyResult = z.looseObject({});
const signInResult = z.object({upstream: z.string(), url: z.string(), startedAt: z.string(), browser: z.union([z.object({opened: z.literal(true)}), z.object({opened: z.literal(false), why: z.string()})])});
// The supervisor's own answers: checked for shape only, as they come from the same build.
const configResult = z.looseObject({config: z.looseObject({path: z.string()}), reload: z.unknown()});
const logsResult = z.looseObject({server: z.string(), lines: z.array(z.unknown()), next: z.number(), gap: z.boolean()});
const callsResult = z.looseObject({calls: z.array(z.unknown()), next: z.number(), gap: z.boolean()});

export {cliClientName};
export type {CallsPage, ConfigAnswer, LogPage};

/**
 * Which process owns a supervisor and how it runs, as the TUI's header,
 * `status` and `shutdown` say it: "hangar pid 123 (mcp-hangar serve)",
 * "(mcp-hangar tui)", or for the lingering daemon a client's `--stdio`
 * started, "(serve daemon started by a client)".
 */
export function ownerLabel(owner: EndpointOwner | undefined, socket: string): string {
	if (owner === undefined) return `the hangar at ${socket}`;
	const daemon = owner.kind === 'serve' && owner.linger === true;
	return `hangar pid ${owner.pid} (${daemon ? 'serve daemon started by a client' : `mcp-hangar ${owner.kind}`})`;
}

/** A JSON-RPC error from the supervisor, with its message (which names the fix). */
export class SupervisorCallError extends Error {
	constructor(
		readonly code: number,
		message: string,
		/** The JSON-RPC error's data, e.g. {error: 'UnknownTool', server, tool, tools}. */
		readonly data?: unknown,
	) {
		super(message);
		this.name = 'SupervisorCallError';
	}
}

export class SupervisorClient {
	private constructor(
		private readonly client: Client,
		private readonly connection: net.Socket,
		readonly owner: EndpointOwner | undefined,
		readonly socket: string,
	) {}

	/**
	 * Connects to the supervisor serving `config` (its state dir, running the
	 * same config file); undefined, with `onSkip` told why when it matters,
	 * when there is none to use.
	 */
	static async connect(config: Pick<HangarConfig, 'path'> & {hangar: Pick<HangarConfig['hangar'], 'stateDir'>}, clientName: string, onSkip: (why: string) => void): Promise<SupervisorClient | undefined> {
		const attachment = await attachToSupervisor(config, 2000);
		if (attachment.socket === undefined) {
			if (attachment.permanent) onSkip(attachment.why);
			return undefined;
		}

		const client = new Client({name: clientName, version: implementationInfo.version});
		const {socket, path, owner} = attachment;
		try {
			await client.connect(new LineTransport(socket, socket, Number.MAX_SAFE_INTEGER));
			// A person runs the CLI: hangar.managementTools (for MCP clients) does not narrow what it may do.
			await client.request({method: personMethod}, z.object({}));
		} catch (error) {
			socket.destroy();
			// A supervisor with no descriptor left accepts and closes at once: say that, never "no hangar is running".
			throw isClosed(error) ? supervisorLost(owner, path, 'connecting', error) : error;
		}

		return new SupervisorClient(client, socket, owner, path);
	}

	/** Who this is, for messages: "hangar pid 123 (mcp-hangar tui)", as ownerLabel says it. */
	get label(): string {
		return ownerLabel(this.owner, this.socket);
	}

	/** Every upstream's entry, page by page. */
	async status(): Promise<StatusEntry[]> {
		return (await this.statusWithContext()).entries;
	}

	/** Every entry, and what the definitions cost a client's context (absent from an older supervisor). */
	async statusWithContext(): Promise<{entries: StatusEntry[]; context: StatusPage['contextTokens'] | undefined}> {
		const entries: StatusEntry[] = [];
		let cursor: string | null = null;
		let context: StatusPage['contextTokens'] | undefined;
		do {
			const result = await this.tool('hangar_list', {limit: maxListLimit, ...(cursor === null ? {} : {cursor})});
			const page = result.structuredContent as StatusPage;
			entries.push(...page.upstreams);
			context = page.contextTokens;
			cursor = page.nextCursor;
		} while (cursor !== null);

		return {entries, context};
	}

	async call(server: string, tool: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
		return this.tool('hangar_call', {server, tool, ...(args === undefined ? {} : {arguments: args})}, {timeout: 24 * 3600 * 1000});
	}

	async act(server: string, action: PersonAction, via: string): Promise<string> {
		try {
			const result = await this.client.request({method: personActionMethod, params: {server, action, via}}, commandResult);
			return result.message;
		} catch (error) {
			throw this.toError(error, `${action} "${server}"`, {sent: true});
		}
	}

	/** Starts a person's sign-in to `server` in the supervisor's process: the URL to open (see Supervisor.startSignIn). */
	async startSignIn(server: string, via: string): Promise<SignInStart> {
		try {
			return await this.client.request({method: signInMethod, params: {server, via}}, signInResult);
		} catch (error) {
			throw this.toError(error, `sign-in to "${server}"`);
		}
	}

	/** Asks the supervisor to stop (mcp-hangar shutdown): it answers, then exits; `via` names who asked in its audit. */
	async shutdown(via: string): Promise<void> {
		try {
			await this.client.request({method: shutdownMethod, params: {via}}, emptyResult);
		} catch (error) {
			throw this.toError(error, 'shutdown', {sent: true});
		}
	}

	/** A private request of the local socket (e.g. hangar/console), its answer checked against `schema`. */
	async request<T>(method: string, params: Record<string, unknown>, schema: z.ZodType<T>): Promise<T> {
		try {
			return await this.client.request({method, params}, schema);
		} catch (error) {
			throw this.toError(error, method);
		}
	}

	/** The config's state (read again from disk for drift), after a reload when `reload` says so. */
	async config(reload?: {via: string}): Promise<ConfigAnswer> {
		try {
			return (await this.client.request({method: configMethod, params: reload === undefined ? {} : {reload: true, via: reload.via}}, configResult)) as ConfigAnswer;
		} catch (error) {
			throw this.toError(error, reload === undefined ? 'reading the config' : 'reload', {sent: reload !== undefined});
		}
	}

	/** Tells `listener` each notification the supervisor sends (hangar's private ones: the SDK handles none of them). */
	onNotification(listener: (method: string) => void): void {
		this.client.fallbackNotificationHandler = async notification => listener(notification.method);
	}

	/** Tells `listener` once when the connection is gone, whichever side ended it. */
	onClose(listener: () => void): void {
		this.client.onclose = listener;
	}

	/** An upstream's log lines numbered from `after`; with `wait`, the answer waits for a line when there is none yet. */
	async logs(server: string, after: number, wait: boolean): Promise<LogPage> {
		try {
			return (await this.client.request({method: logsMethod, params: {server, after, wait}}, logsResult, {timeout: 60_000})) as LogPage;
		} catch (error) {
			throw this.toError(error, `reading the log of "${server}"`);
		}
	}

	/** The calls log's calls after seq `after`, oldest first; with `wait`, the answer waits for a call when there is none yet. */
	async calls(after: number, wait: boolean): Promise<CallsPage> {
		try {
			return (await this.client.request({method: callsMethod, params: {after, wait}}, callsResult, {timeout: 60_000})) as CallsPage;
		} catch (error) {
			throw this.toError(error, 'reading the calls');
		}
	}

	async close(): Promise<void> {
		await this.client.close();
		this.connection.end();
	}

	private async tool(name: string, args: Record<string, unknown>, options?: {timeout: number}): Promise<CallToolResult> {
		try {
			return await this.client.callTool({name, arguments: args}, options);
		} catch (error) {
			throw this.toError(error, name === 'hangar_call' ? `calling "${String(args['server'])}"/"${String(args['tool'])}"` : 'reading the status', {sent: name === 'hangar_call'});
		}
	}

	/** The supervisor's JSON-RPC error, with its own sentence; a closed connection, said with who closed it and what became of the request. */
	private toError(error: unknown, operation: string, options: {sent?: boolean} = {}): Error {
		if (error instanceof ProtocolError) return new SupervisorCallError(error.code, error.message, error.data);
		if (isClosed(error)) return supervisorLost(this.owner, this.socket, operation, error, options.sent === true);
		return error as Error;
	}
}

/** Whether the SDK gave up on the request because the connection closed. */
function isClosed(error: unknown): boolean {
	return error instanceof SdkError && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected);
}
