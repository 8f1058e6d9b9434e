/**
 * The client side of the local socket: where the supervisor for a state dir
 * listens, who owns it (`endpoint.json`), and connecting to it, with each
 * failure sorted into one that can go away by itself (a supervisor
 * restarting) or one that never will. The `--stdio` bridge and the CLI's
 * client need nothing else of the endpoint, so this module stays free of the
 * engine: attaching to a running supervisor loads none of it.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Linux's sun_path is 108 bytes with the terminating NUL (macOS: 104). */
export const maxSocketPathBytes = process.platform === 'darwin' ? 103 : 107;

/** Where the supervisor for `stateDir` listens. */
export function socketPath(stateDir: string): string {
	return path.join(stateDir, 'hangar.sock');
}

/** Who owns the endpoint: written to STATE_DIR/endpoint.json while it listens. */
export type EndpointOwner = {
	pid: number;
	kind: 'tui' | 'serve';
	startedAt: string;
	config: string;
	socket: string;
	/** `serve --linger` (what `--stdio` starts): it exits once no client is attached, and a bridge that loses it starts another. */
	linger?: boolean;
	/**
	 * The settings of the config this supervisor loaded that a `--stdio`
	 * bridge needs (stdio-bridge.ts): with them it attaches without loading
	 * and validating the config itself.
	 */
	bridge?: BridgeSettings;
};

/** What a bridge takes from its supervisor's config: the line limit, and how long a held request waits. */
export type BridgeSettings = {maxMessageBytes: number; requestTimeoutMs: number};

/** The bridge settings of a loaded config, as endpoint.json records them. */
export function bridgeSettings(config: {hangar: {maxMessageBytes: number; callTimeoutMs: number}}): BridgeSettings {
	return {maxMessageBytes: config.hangar.maxMessageBytes, requestTimeoutMs: config.hangar.callTimeoutMs};
}

export function ownerFile(stateDir: string): string {
	return path.join(stateDir, 'endpoint.json');
}

export function readOwner(stateDir: string): EndpointOwner | undefined {
	try {
		const owner = JSON.parse(fs.readFileSync(ownerFile(stateDir), 'utf8')) as EndpointOwner;
		return typeof owner.pid === 'number' ? owner : undefined;
	} catch {
		return undefined;
	}
}

export type ConnectFailure = {kind: 'temporary' | 'permanent'; code: string; message: string};

/**
 * Whether a connect error can go away by itself: the socket is missing or
 * refusing while a supervisor restarts (temporary), or it can never work as
 * configured: another user's socket, a path that is not a socket, a path
 * too long for a socket (permanent).
 */
export function classifyConnectError(error: NodeJS.ErrnoException, where: string): ConnectFailure {
	const code = error.code ?? 'UNKNOWN';
	const temporary = ['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAGAIN', 'ETIMEDOUT'].includes(code);
	const permission = code === 'EACCES' || code === 'EPERM';
	return {
		kind: temporary ? 'temporary' : 'permanent',
		code,
		message: permission
			? `permission denied on ${where}: it belongs to another user (only the user who runs the supervisor may connect)`
			: `${where}: ${error.message}`,
	};
}

/** Tries to connect; resolves with the connected socket or the classified failure. */
export async function connectSocket(where: string, timeoutMs = 2000): Promise<net.Socket | ConnectFailure> {
	if (Buffer.byteLength(where) > maxSocketPathBytes) {
		return {
			kind: 'permanent',
			code: 'ENAMETOOLONG',
			message: `the socket path ${where} is ${Buffer.byteLength(where)} bytes, longer than a Unix socket allows (${maxSocketPathBytes}); use a shorter --state-dir`,
		};
	}

	return new Promise(resolve => {
		const socket = net.createConnection({path: where, allowHalfOpen: true});
		const timer = setTimeout(() => {
			socket.destroy();
			resolve({kind: 'temporary', code: 'ETIMEDOUT', message: `${where}: no answer to connect within ${timeoutMs} ms`});
		}, timeoutMs);
		socket.once('connect', () => {
			clearTimeout(timer);
			socket.removeAllListeners('error');
			resolve(socket);
		});
		socket.once('error', error => {
			clearTimeout(timer);
			resolve(classifyConnectError(error as NodeJS.ErrnoException, where));
		});
	});
}

/** Connected to a supervisor: the socket, where it listens and who owns it (endpoint.json as read on connecting). */
export type Attached = {socket: net.Socket; path: string; owner: EndpointOwner | undefined};
export type Attachment = Attached | {socket: undefined; why: string; permanent: boolean};

/**
 * Connects to the supervisor serving `config`'s state dir, when it runs the
 * same config file: a client that names a config means its upstreams, and
 * two configs can share a state dir (the default one). Otherwise says why not.
 */
export async function attachToSupervisor(config: {path: string; hangar: {stateDir: string}}, timeoutMs = 1000): Promise<Attachment> {
	const where = socketPath(config.hangar.stateDir);
	const socket = await connectSocket(where, timeoutMs);
	if (!(socket instanceof net.Socket)) return {socket: undefined, why: socket.message, permanent: socket.kind === 'permanent'};
	const owner = readOwner(config.hangar.stateDir);
	if (owner !== undefined && path.resolve(owner.config) !== path.resolve(config.path)) {
		socket.destroy();
		return {
			socket: undefined,
			why: `the supervisor on ${where} (hangar pid ${owner.pid}, mcp-hangar ${owner.kind}) runs ${owner.config}, not ${config.path}; give each config its own hangar.stateDir to run both`,
			permanent: true,
		};
	}

	return {socket, path: where, owner};
}

