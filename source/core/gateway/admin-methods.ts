/**
 * hangar's own methods, served only on the local socket (the CLI, an
 * attached TUI): only the local socket endpoint installs them in a
 * session's method table, so `--stdio` and HTTP sessions never have them
 * (an MCP client asking gets -32601), and the bridge keeps an MCP client
 * from reaching them through the socket.
 *
 * - `hangar/command`: a person's command on one upstream (start, stop, ...);
 * - `hangar/sign-in`: a person starts an OAuth sign-in; answers the URL to open;
 * - `hangar/config`: the config's state, after a reload when asked;
 * - `hangar/logs`: an upstream's log lines, waiting for the next one;
 * - `hangar/calls`: the calls log, waiting for the next call;
 * - `hangar/console`: a console's snapshot (see console.ts);
 * - `hangar/person`: the session is a person's (management tools are not narrowed);
 * - `hangar/shutdown`: a person stops this hangar (mcp-hangar shutdown), named in the audit's shutdown line.
 */
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {ClientRecord} from '../engine/clients/clients.js';
import type {CallLogDetail} from '../engine/call-log.js';
import {startSignIn} from '../engine/sign-in-start.js';
import {isPersonAction, personActions, type Supervisor} from '../engine/supervisor.js';
import type {LogBuffer} from '../link/log-buffer.js';
import {configView, type ConfigView, type ReloadView} from '../views/views.js';
import {callsMethod, shutdownMethod, personActionMethod, signInMethod, configMethod, consoleChangedNotification, consoleMethod, logsMethod, personMethod} from '../wire/protocol.js';
import {ConsoleChannel, parseConsoleParams} from './console.js';
import type {Params, RequestHandler} from './pipeline.js';

export type ConfigAnswer = {config: ConfigView; reload: ReloadView | null};

/** A page of the calls log for `logs --calls`: the calls after `after`, oldest first, with their previews. */
export type CallsPage = {
	calls: CallLogDetail[];
	/** The seq to ask for next. */
	next: number;
	/** Calls between `after` and the first one here fell off the bounded log. */
	gap: boolean;
};

export type LogPage = {
	server: string;
	/** Numbered among every line the upstream's buffer ever held; `next` is the number to ask for next. */
	lines: Array<{n: number; at: string; source: 'stderr' | 'stdout' | 'hangar'; text: string}>;
	next: number;
	/** Lines before `lines` fell off the bounded buffer, or the upstream was replaced by a reload (numbering began again). */
	gap: boolean;
};

/** How long a `wait` for the next log line or call lasts before it is answered empty. */
const waitMs = 20_000;

/** What the admin methods need of the session that serves them. */
export type AdminSession = {
	readonly supervisor: Supervisor;
	readonly client: ClientRecord;
	readonly label: string;
	readonly closed: boolean;
	/** Calls `listener` when the session closes; returns the function that stops listening. */
	onClose(listener: () => void): () => void;
	notify(method: string, params?: Record<string, unknown>): void;
	/** The session is a person's: hangar.managementTools does not apply to it. */
	markPerson(): void;
	handle(method: string, handler: RequestHandler): void;
};

/** Installs hangar's own methods in `session`'s table (the local socket endpoint does, before the session starts). */
export function installAdminMethods(session: AdminSession): void {
	const {supervisor} = session;
	const via = (params: Params): string => (typeof params?.['via'] === 'string' ? params['via'] : `a person (${session.label})`);
	let console: ConsoleChannel | undefined;
	session.onClose(() => console?.close());

	/** Resolves at the first of `arm`'s events, the session's close, or after waitMs. */
	const waitFor = async (arm: (done: () => void) => () => void): Promise<void> =>
		new Promise<void>(resolve => {
			const finish = (): void => {
				clearTimeout(timer);
				disarm();
				offClose();
				resolve();
			};

			const timer = setTimeout(finish, waitMs);
			const disarm = arm(finish);
			const offClose = session.onClose(finish);
		});

	session.handle(personActionMethod, async (_context, params) => {
		const server = params?.['server'];
		const action = params?.['action'];
		if (typeof server !== 'string' || !isPersonAction(action)) {
			throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "${personActionMethod}": needs {"server": string, "action": ${personActions.join(' | ')}}`);
		}

		return {message: await supervisor.act(server, action, via(params))};
	});

	session.handle(shutdownMethod, async (_context, params) => {
		// Only a process that exits on it listens (runtime.ts): elsewhere the asker falls back to SIGTERM.
		if (supervisor.listenerCount('exitAsked') === 0) throw new JsonRpcError(JsonRpcCode.MethodNotFound, `"${shutdownMethod}" is not served by this hangar: stop its process instead`);
		const who = via(params);
		// Answered first: the exit drains this session.
		setImmediate(() => supervisor.emit('exitAsked', who));
		return {};
	});

	session.handle(signInMethod, async (_context, params) => {
		const server = params?.['server'];
		if (typeof server !== 'string') throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "${signInMethod}": needs {"server": string}`);
		return await startSignIn(supervisor, server, via(params));
	});

	session.handle(configMethod, async (_context, params) => {
		const record = params?.['reload'] === true ? await supervisor.reload(via(params)) : undefined;
		const view = configView(supervisor, {check: true});
		const answer: ConfigAnswer = {config: view, reload: record === undefined ? null : (view.reloads.at(-1) ?? null)};
		return answer;
	});

	// An upstream's log lines from `after` on, waiting for the next one when asked and there is none yet.
	session.handle(logsMethod, async (_context, params) => {
		const server = params?.['server'];
		if (typeof server !== 'string') throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "${logsMethod}": needs {"server": string, "after"?: number, "wait"?: boolean}`);
		const after = typeof params?.['after'] === 'number' ? params['after'] : 0;
		let log: LogBuffer = supervisor.upstream(server).log;
		const end = (): number => log.droppedLines + log.size;
		if (params?.['wait'] === true && after === end()) {
			// The next line, or a reload (which may replace the upstream and its log).
			await waitFor(done => {
				const off = log.onLine(done);
				supervisor.on('reload', done);
				return () => {
					off();
					supervisor.off('reload', done);
				};
			});
			if (session.closed) return {server, lines: [], next: after, gap: false};
			log = supervisor.upstream(server).log;
		}

		// Numbering went backwards: the upstream was replaced, so its buffer began again.
		const from = after > end() ? log.droppedLines : Math.max(after, log.droppedLines);
		const lines = log.tail(end() - from);
		const page: LogPage = {
			server,
			lines: lines.map((line, index) => ({n: from + index, at: new Date(line.at).toISOString(), source: line.source, text: line.text})),
			next: from + lines.length,
			gap: from > after || after > end(),
		};
		return page;
	});

	// The calls log after `after`, waiting for the next call when asked and there is none yet.
	session.handle(callsMethod, async (_context, params) => {
		const after = typeof params?.['after'] === 'number' ? params['after'] : 0;
		const log = supervisor.calls;
		if (params?.['wait'] === true && log.lastSeq <= after) {
			await waitFor(done => {
				const off = log.onRecord(done);
				return () => void off();
			});
		}

		const calls = log.after(after);
		const page: CallsPage = {calls, next: calls.at(-1)?.seq ?? Math.max(after, log.lastSeq), gap: calls.length > 0 && calls[0]!.seq > after + 1 && after > 0};
		return page;
	});

	// A console's read: the snapshot for its focus, and the next change notification armed.
	session.handle(consoleMethod, (_context, params) => {
		const parsed = parseConsoleParams(params);
		if (console === undefined) {
			console = new ConsoleChannel(supervisor, () => session.notify(consoleChangedNotification));
			session.client.markConsole();
		}

		return console.read(parsed);
	});

	session.handle(personMethod, () => {
		session.markPerson();
		return {};
	});
}
