/**
 * The local endpoint: the process that owns a supervisor (`mcp-hangar tui`
 * or `mcp-hangar serve`) listens on a Unix domain socket in the state dir
 * (Linux, macOS). Each connection is its own MCP gateway session,
 * newline-delimited JSON-RPC exactly as `--stdio` serves it; `--stdio`
 * bridges, the CLI and anything else of the same user attach here.
 *
 * Access: the state dir is owner-only (0700, owned by this user) and the
 * socket itself 0600, so another user cannot connect. Ownership: a live
 * socket is never replaced; `endpoint.json` (created exclusively, holding the
 * owner's pid) decides between two hangars starting at once, and a socket or
 * lock left by a dead process is detected (nobody answers, the pid is gone)
 * and replaced.
 *
 * Shutdown drains: every connection is told `notifications/hangar/draining`;
 * a bridge then ends its side, so each request it sent is read and answered
 * before the connection closes and it moves to the next supervisor.
 *
 * The client side (the socket's path, endpoint.json, connecting) is
 * socket-client.ts, which the bridge and the CLI use without this module.
 */
import {once} from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import {GatewaySession} from '../gateway/session.js';
import {installAdminMethods} from '../gateway/admin-methods.js';
import {LineTransport, logDrops} from '../wire/line-transport.js';
import {drainingNotification} from '../wire/protocol.js';
import {bridgeSettings, connectSocket, maxSocketPathBytes, ownerFile, readOwner, socketPath, type BridgeSettings, type EndpointOwner} from './socket-client.js';
import type {Logger} from '../base/logger.js';
import {isAlive} from '../base/process-alive.js';
import {supervisorFlags} from '../config/paths.js';
import {describeShortage} from '../base/resource-limits.js';
import {settleWithin} from '../base/settle.js';
import type {Supervisor} from '../engine/supervisor.js';
import {makeDirectory} from '../base/make-directory.js';

/** Another hangar serves this state dir; it is never replaced. */
export class EndpointBusyError extends Error {
	constructor(
		readonly owner: EndpointOwner | undefined,
		stateDir: string,
	) {
		const who = owner === undefined ? 'another hangar' : `hangar pid ${owner.pid} (mcp-hangar ${owner.kind}, config ${owner.config})`;
		super(
			`the state dir ${stateDir} is already served by ${who}. ` +
				`Clients started with \`mcp-hangar --stdio\` attach to it. Stop it first (\`mcp-hangar shutdown${owner === undefined ? ` --state-dir ${stateDir}` : ` ${supervisorFlags(owner.config, stateDir)}`}\`) to run another supervisor here, or give this one its own --state-dir.`,
		);
		this.name = 'EndpointBusyError';
	}
}

/**
 * The error to refuse with when a supervisor already answers on `stateDir`'s
 * socket, else undefined. Checked before anything starts, so a refusal is
 * one clear sentence; `LocalEndpoint.listen` checks again against races.
 */
export async function busyEndpoint(stateDir: string): Promise<EndpointBusyError | undefined> {
	const probe = await probeEndpoint(stateDir);
	return probe.busy ? new EndpointBusyError(probe.owner, stateDir) : undefined;
}

/** Whether a supervisor answers on `stateDir`'s socket, and endpoint.json's owner as read right after asking. */
async function probeEndpoint(stateDir: string): Promise<{busy: boolean; owner: EndpointOwner | undefined}> {
	const answer = await connectSocket(socketPath(stateDir), 1000);
	const busy = answer instanceof net.Socket;
	if (busy) answer.destroy();
	return {busy, owner: readOwner(stateDir)};
}

/** Makes sure the state dir exists, belongs to this user and lets nobody else in. */
function secureDir(dir: string, logger: Logger): void {
	makeDirectory(dir, 0o700);
	const stat = fs.statSync(dir);
	const uid = process.getuid?.();
	if (uid !== undefined && stat.uid !== uid) {
		throw new Error(`the state dir ${dir} belongs to user id ${stat.uid}, not to this user (${uid}); hangar will not put its socket there. Use a --state-dir of your own.`);
	}

	if ((stat.mode & 0o077) !== 0) {
		fs.chmodSync(dir, 0o700);
		logger.warn(`state dir ${dir} was open to other users (mode ${(stat.mode & 0o777).toString(8)}); made it owner-only (700)`);
	}
}

/**
 * Creates `file` with `text` unless it exists, never visible half-written:
 * the text goes to a file of this process first, which is then linked into
 * place (a link, like an exclusive create, fails when the name is taken).
 * A write that fails (no space left on device) leaves no `file` behind and
 * throws with the reason.
 */
function createComplete(file: string, text: string): void {
	const temp = `${file}.${process.pid}.tmp`;
	try {
		fs.writeFileSync(temp, text, {mode: 0o600});
		fs.linkSync(temp, file);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'EEXIST') return;
		throw new Error(`cannot write ${file}: ${describeShortage(code) ?? (error as Error).message}`);
	} finally {
		fs.rmSync(temp, {force: true});
	}
}

export type LocalEndpointOptions = {
	supervisor: Supervisor;
	logger: Logger;
	kind: EndpointOwner['kind'];
	/** Recorded in endpoint.json (see EndpointOwner). */
	linger?: boolean;
	/** How long a closing endpoint waits for its connections to finish their requests (default 5 s). */
	drainMs?: number;
};

export type ClaimOptions = {configPath: string; kind: EndpointOwner['kind']; logger: Logger; linger?: boolean | undefined; bridge?: BridgeSettings | undefined};

export class LocalEndpoint {
	private readonly sessions = new Set<{session: GatewaySession; socket: net.Socket}>();
	/** Connections that have not sent a byte yet: not clients (see accept). */
	private readonly silent = new Set<net.Socket>();
	/** Resolves the wait in close() once the last connection is gone. */
	private onEmpty: (() => void) | undefined;
	private connections = 0;
	private closing: Promise<void> | undefined;

	private constructor(
		private readonly server: net.Server,
		readonly path: string,
		private readonly stateDir: string,
		private readonly options: LocalEndpointOptions,
	) {
		server.on('connection', socket => this.accept(socket));
	}

	/** Listens for `supervisor`'s state dir; throws EndpointBusyError when another live hangar serves it. */
	static async listen(options: LocalEndpointOptions): Promise<LocalEndpoint> {
		const {supervisor, logger} = options;
		const stateDir = supervisor.config.hangar.stateDir;
		const where = socketPath(stateDir);
		secureDir(stateDir, logger);
		if (Buffer.byteLength(where) > maxSocketPathBytes) {
			throw new Error(`the socket path ${where} is longer than a Unix socket allows (${maxSocketPathBytes} bytes); use a shorter --state-dir`);
		}

		await LocalEndpoint.takeOwnership(stateDir, where, {configPath: supervisor.config.path, kind: options.kind, logger, linger: options.linger, bridge: bridgeSettings(supervisor.config)});
		const server = net.createServer({allowHalfOpen: true});
		try {
			// Owner-only from the first instant: the socket is created under this umask.
			const umask = process.umask(0o177);
			try {
				server.listen(where);
			} finally {
				if (umask !== undefined) process.umask(umask);
			}

			await once(server, 'listening');
			fs.chmodSync(where, 0o600);
		} catch (error) {
			fs.rmSync(ownerFile(stateDir), {force: true});
			throw error;
		}

		server.on('error', error => logger.error(`local endpoint ${where}: ${error.message}`));
		logger.info(`listening for MCP clients on ${where}`);
		return new LocalEndpoint(server, where, stateDir, options);
	}

	/**
	 * Takes the endpoint for this process before anything else starts (the
	 * state store, the upstreams): of two hangars started at once for one
	 * state dir, the one that loses here has touched nothing and exits.
	 * Throws EndpointBusyError; `listen` takes it again (a no-op when held).
	 */
	static async claim(stateDir: string, options: ClaimOptions): Promise<void> {
		secureDir(stateDir, options.logger);
		await LocalEndpoint.takeOwnership(stateDir, socketPath(stateDir), options);
	}

	/**
	 * Creates endpoint.json exclusively. An existing one is honoured while its
	 * pid lives and its socket answers (or it is only seconds old: the owner
	 * may still be starting); otherwise the dead owner's files are removed.
	 */
	private static async takeOwnership(stateDir: string, where: string, options: ClaimOptions): Promise<void> {
		const file = ownerFile(stateDir);
		const owner: EndpointOwner = {
			pid: process.pid,
			kind: options.kind,
			startedAt: new Date().toISOString(),
			config: options.configPath,
			socket: where,
			...(options.linger === true ? {linger: true} : {}),
			...(options.bridge === undefined ? {} : {bridge: options.bridge}),
		};
		for (let attempt = 0; attempt < 5; attempt++) {
			createComplete(file, `${JSON.stringify(owner, null, 2)}\n`);

			if (readOwner(stateDir)?.pid === process.pid) {
				// The lock is ours. A socket here is a dead process's, unless it answers (its owner lost its lock file).
				const answer = await connectSocket(where, 1000);
				if (answer instanceof net.Socket) {
					answer.destroy();
					fs.rmSync(file, {force: true});
					throw new EndpointBusyError(undefined, stateDir);
				}

				fs.rmSync(where, {force: true});
				return;
			}

			const {busy, owner: existing} = await probeEndpoint(stateDir);
			if (busy) throw new EndpointBusyError(existing, stateDir);
			const alive = existing !== undefined && isAlive(existing.pid);

			let age = Infinity;
			try {
				age = Date.now() - fs.statSync(file).mtimeMs;
			} catch {}

			// A young lock whose pid lives may be a hangar that is still starting. One that cannot be read names
			// nobody: the file is always written whole (createComplete), so it is what a failed write (a full disk) left.
			if (age < 10_000 && existing !== undefined && existing.pid !== process.pid && alive) {
				throw new EndpointBusyError(existing, stateDir);
			}

			options.logger.warn(
				`replacing a stale endpoint in ${stateDir}${existing === undefined ? ' (endpoint.json is empty or unreadable, and nothing answers on the socket)' : ` (pid ${existing.pid} ${alive ? 'does not answer on its socket' : 'is gone'})`}`,
			);
			fs.rmSync(file, {force: true});
		}

		throw new Error(`could not take the endpoint lock ${file}: another hangar keeps creating it`);
	}

	/**
	 * A connection becomes a client (a gateway session, counted in
	 * `supervisor.clients`) with its first byte. One that closes without
	 * sending any is a probe (another hangar, or a bridge, checking that
	 * this one answers): it is not a client, so its leaving never ends a
	 * lingering daemon's wait for its next one.
	 */
	private accept(socket: net.Socket): void {
		if (this.closing !== undefined) {
			socket.destroy();
			return;
		}

		this.silent.add(socket);
		const forget = (): void => {
			this.silent.delete(socket);
			socket.destroy();
		};

		socket.on('error', forget);
		socket.once('end', forget);
		socket.once('data', (chunk: Buffer) => {
			this.silent.delete(socket);
			socket.off('error', forget);
			socket.off('end', forget);
			socket.pause();
			socket.unshift(chunk);
			if (this.closing !== undefined) socket.destroy();
			else this.open(socket);
		});
	}

	private open(socket: net.Socket): void {
		const {supervisor, logger} = this.options;
		const label = `socket#${++this.connections}`;
		const transport = new LineTransport(socket, socket, supervisor.config.hangar.maxMessageBytes, logDrops(logger, label));
		const session = new GatewaySession({supervisor, transport, logger: logger.child('gateway'), label, kind: 'socket'});
		// Only the local socket serves hangar's own methods (the CLI's and an attached TUI's).
		installAdminMethods(session);
		const entry = {session, socket};
		this.sessions.add(entry);
		session.onClose(() => {
			this.sessions.delete(entry);
			if (this.sessions.size === 0) this.onEmpty?.();
			socket.end();
			logger.debug(`${label}: closed`);
		});
		// A peer that ended its side may still read what it is owed (a bridge finishing before a restart, a one-shot pipe), and
		// its session answers it (the drain). A killed one ended it too but reads nothing: a write of no bytes tells the two
		// apart at once (EPIPE only when it is gone), so a killed client's calls are cancelled now, not when the drain ends.
		socket.once('end', () => {
			if (!socket.writable) return;
			const calls = session.inFlight;
			socket.write(Buffer.alloc(0), error => {
				if (error === undefined || error === null) return;
				if (calls === 0) logger.debug(`${label}: the client closed its connection`);
				else logger.info(`${label}: the client is gone with ${calls} request${calls === 1 ? '' : 's'} in flight (its connection closed, nobody reads the answers); cancelling ${calls === 1 ? 'it' : 'them'}`);
			});
		});
		socket.on('close', () => {
			// The peer vanished without ending its side: close the session too.
			if (this.sessions.has(entry)) void session.close();
		});
		session.start().then(
			() => {
				logger.debug(`${label}: connected`);
				// Its first bytes waited in the socket (see accept) for the session's reader, which now listens.
				socket.resume();
			},
			(error: unknown) => {
				logger.warn(`${label}: could not start a session: ${(error as Error).message}`);
				socket.destroy();
			},
		);
	}

	/**
	 * Stops listening, tells every connection the supervisor is going away,
	 * waits (up to drainMs) for them to finish what they sent, then closes
	 * what is left. Safe to call more than once.
	 */
	async close(): Promise<void> {
		this.closing ??= (async () => {
			const drainMs = this.options.drainMs ?? 5000;
			// No new connections; the open ones are drained below (server.close's callback would wait for them).
			this.server.close();
			for (const socket of this.silent) socket.destroy();
			this.silent.clear();
			if (readOwner(this.stateDir)?.pid === process.pid) {
				fs.rmSync(this.path, {force: true});
				fs.rmSync(ownerFile(this.stateDir), {force: true});
			}

			const open = [...this.sessions];
			if (open.length > 0) {
				this.options.logger.info(`draining ${open.length} client connection${open.length === 1 ? '' : 's'}`);
				await Promise.all(open.map(async ({session}) => session.notify(drainingNotification)));
				await this.allClosed(drainMs);
			}

			for (const {session, socket} of [...this.sessions]) {
				await session.close().catch(() => {});
				socket.destroy();
			}
		})();
		return this.closing;
	}

	private async allClosed(timeoutMs: number): Promise<void> {
		if (this.sessions.size === 0) return;
		await settleWithin(
			new Promise<void>(resolve => {
				this.onEmpty = resolve;
			}),
			timeoutMs,
		);
		this.onEmpty = undefined;
	}
}
