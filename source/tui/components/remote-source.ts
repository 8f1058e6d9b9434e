/**
 * The terminal UI on a supervisor that another process owns (`serve`,
 * another TUI, the daemon a client's `--stdio` started): a `HangarSource`
 * over a `ConsoleLink` on the local socket, showing the same snapshots the
 * owner's own TUI reads in-process.
 *
 * `read` must answer at once (React renders from it), so it returns the last
 * snapshot received. A fresh one is read when the supervisor says something
 * changed (at most ten times a second, see gateway/console.ts), when the
 * screen's focus changes, and once a second anyway so ages move. A log view
 * receives only the lines it does not hold yet.
 *
 * Status tells the truth: a snapshot older than `staleMs`, or the last one
 * before the owner went away, carries its age and why. When the link is
 * lost, the source looks for a supervisor again every `retryMs` and goes on
 * with whichever process owns it then. Quitting detaches: nothing stops.
 */
import {errorMessage} from '../../core/base/errors.js';
import {noSupervisor, type ConsoleLink} from '../../core/endpoints/console-client.js';
import type {ConsoleAnswer, ConsoleParams} from '../../core/gateway/console.js';
import {describeApproval} from '../../core/engine/upstream/pins.js';
import {clock} from './cell-format.js';
import {activeClientCount, type Focus, type HangarSnapshot, type HangarSource, type LogLines} from './hangar-source.js';

export type RemoteSourceOptions = {
	link: ConsoleLink;
	/** The first answer, read (with no focus) before the first frame. */
	first: ConsoleAnswer;
	/** Where this terminal's own log goes. */
	logFile: string;
	/** Finds a supervisor for the same config again once the link is lost: a new link, or why not (yet). */
	reconnect: () => Promise<ConsoleLink | string>;
	/** Read again this often without being told of a change, so ages and uptimes move (default 1000 ms). */
	refreshMs?: number;
	/** A snapshot older than this shows its age (default 3000 ms). */
	staleMs?: number;
	/** How long between two attempts to find a supervisor again (default 1000 ms). */
	retryMs?: number;
	/** Told when the link is lost and when it is made again, for this terminal's log (default: nowhere). */
	log?: (line: string) => void;
};

export type RemoteSource = HangarSource & {
	/** Who owns the supervisor ("hangar pid 123 (mcp-hangar serve)"): the one attached to, or last attached to while lost. */
	owner: () => string;
	/** Why the link is lost, while it is. */
	lost: () => string | undefined;
	/** Stops reading and looking, and closes the link. */
	close: () => Promise<void>;
};

const focusKey = (focus: Focus): string => JSON.stringify(focus ?? null);

/**
 * The log lines after a read: the lines held from `logsHeldFrom` on, then
 * the new ones, when the answer carries only the new ones; else the answer's.
 */
export function mergeLogs(held: LogLines | undefined, answer: ConsoleAnswer): LogLines | undefined {
	const {logs} = answer.snapshot;
	const from = answer.logsHeldFrom;
	if (logs === undefined || from === undefined || held === undefined) return logs;
	// The answer continues what is held (it was asked for the lines from there on); anything else replaces it.
	if (held.first + held.lines.length !== logs.first) return logs;
	const start = Math.max(from, held.first);
	return {lines: [...held.lines.slice(start - held.first), ...logs.lines], first: start};
}

export function remoteSource(options: RemoteSourceOptions): RemoteSource {
	const refreshMs = options.refreshMs ?? 1000;
	const staleMs = options.staleMs ?? 3000;
	const retryMs = options.retryMs ?? 1000;
	let link: ConsoleLink | undefined;
	let owner = options.link.owner;
	let answer = options.first;
	let answerKey = focusKey(undefined);
	/** The link the answer came from: log lines are numbered per supervisor, so only its own are continued. */
	let answerLink: ConsoleLink | undefined = options.link;
	let receivedAt = Date.now();
	let focus: Focus;
	let lost: string | undefined;
	/** Why the last attempt to find a supervisor failed, or why the last read failed while linked. */
	let failure: string | undefined;
	let reading = false;
	let again = false;
	let closed = false;
	let retryTimer: NodeJS.Timeout | undefined;
	const listeners = new Set<() => void>();
	const emit = (): void => {
		for (const listener of [...listeners]) listener();
	};

	const refresh = async (): Promise<void> => {
		if (reading) {
			again = true;
			return;
		}

		const from = link;
		if (from === undefined || closed) return;
		reading = true;
		try {
			do {
				again = false;
				const wanted = focus;
				const key = focusKey(wanted);
				const held = key === answerKey && answerLink === from ? answer.snapshot.logs : undefined;
				const params: ConsoleParams = {focus: wanted, ...(held === undefined ? {} : {logsAfter: held.first + held.lines.length})};
				const next = await from.read(params);
				if (from !== link || closed) return;
				answer = {...next, snapshot: {...next.snapshot, logs: mergeLogs(held, next)}};
				answerKey = key;
				answerLink = from;
				receivedAt = Date.now();
				failure = undefined;
				emit();
			} while (again && from === link && !closed);
		} catch (error) {
			// A lost connection is reported by onLost; anything else (an owner that serves no console) shows as why the data is old.
			if (from === link) {
				failure = `${owner} did not answer a snapshot read: ${errorMessage(error)}`;
				emit();
			}
		} finally {
			reading = false;
		}
	};

	const lookAgain = (): void => {
		if (closed || retryTimer !== undefined) return;
		retryTimer = setTimeout(() => {
			void options
				.reconnect()
				.catch((error: unknown) => errorMessage(error))
				.then(next => {
					retryTimer = undefined;
					if (closed) {
						if (typeof next !== 'string') void next.close();
						return;
					}

					if (typeof next === 'string') {
						failure = next;
						lookAgain();
						emit();
						return;
					}

					attach(next);
				});
		}, retryMs);
	};

	const attach = (next: ConsoleLink): void => {
		if (link === undefined && lost !== undefined) options.log?.(`attached again, to ${next.owner}`);
		link = next;
		owner = next.owner;
		lost = undefined;
		failure = undefined;
		next.onChanged(() => void refresh());
		next.onLost(why => {
			if (link !== next) return;
			link = undefined;
			lost = why;
			options.log?.(`${why}; looking for a supervisor again`);
			emit();
			lookAgain();
		});
		void refresh();
	};

	attach(options.link);
	const tick = setInterval(() => {
		if (link !== undefined) void refresh();
		// Ages move: a stale snapshot's age is on screen.
		if (staleness() !== undefined) emit();
	}, refreshMs);

	function staleness(): HangarSnapshot['stale'] {
		const age = Date.now() - receivedAt;
		const seconds = Math.floor(age / 1000);
		// Nothing answering is what "reconnecting" says already; a socket that cannot be used (another config took the state dir) is news.
		if (lost !== undefined) return {seconds, why: `${lost}; reconnecting${failure === undefined || failure === noSupervisor ? '' : ` (${failure})`}…`};
		if (failure !== undefined) return {seconds, why: failure};
		if (age > staleMs) return {seconds, why: `${owner} has not answered for ${seconds}s`};
		return undefined;
	}

	return {
		read(wanted) {
			if (focusKey(wanted) !== focusKey(focus)) {
				focus = wanted;
				queueMicrotask(() => void refresh());
			}

			const {snapshot} = answer;
			const same = focusKey(wanted) === answerKey;
			return {
				...snapshot,
				// Details and logs of another focus would show the wrong upstream: none until this focus is read.
				details: same ? snapshot.details : undefined,
				logs: same ? snapshot.logs : undefined,
				logFile: options.logFile,
				notice: undefined,
				owner,
				stale: staleness(),
			};
		},
		subscribe(wanted, listener) {
			if (focusKey(wanted) !== focusKey(focus)) {
				focus = wanted;
				void refresh();
			}

			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		async act(name, action) {
			if (link === undefined) {
				throw new Error(`cannot ${action} "${name}": not attached to a supervisor (${lost ?? 'not connected'}). This TUI attaches again by itself as soon as one runs for this config.`);
			}

			return link.act(name, action);
		},
		async startSignIn(name) {
			if (link === undefined) {
				throw new Error(`cannot sign in to "${name}": not attached to a supervisor (${lost ?? 'not connected'}). This TUI attaches again by itself as soon as one runs for this config.`);
			}

			return link.startSignIn(name);
		},
		approvalPins(name) {
			const plan = answer.approvals[name];
			return plan === undefined ? 'its tools as the supervisor knows them now' : describeApproval(plan, ms => `at ${clock(ms)}`);
		},
		attachedClients: () => activeClientCount(answer.snapshot),
		detaches: true,
		owner: () => owner,
		lost: () => lost,
		async close() {
			closed = true;
			clearInterval(tick);
			if (retryTimer !== undefined) clearTimeout(retryTimer);
			listeners.clear();
			await link?.close();
		},
	};
}
