/**
 * The words of the SupervisorUnavailable error the `--stdio` bridge
 * (bridge.ts) answers a request with when no supervisor took it: why, and
 * what the person can do about it; and which requests it may send again.
 */
import {isHangarMethod} from '../wire/protocol.js';
import {setupMethods} from './bridge-session.js';

/** Methods that only read: safe to send again when the supervisor vanished before answering. */
export const resendable = (method: string): boolean => method !== 'tools/call' && !isHangarMethod(method);

/** Methods whose params the bridge keeps (initialize, the session's set-up, a cancellation's target): their lines are parsed whole. */
const paramsRead = new Set(['initialize', 'notifications/cancelled', ...setupMethods]);
export const readsParams = (method: string): boolean => paramsRead.has(method);

/** The answer to a request in flight when the supervisor went away (not one that only reads: those are sent again). */
export const lostInFlight = (method: string | undefined): string =>
	`mcp-hangar: the supervisor went away while "${method ?? 'request'}" was in flight, so it may or may not have run; nothing was retried. Its clients reconnect by themselves; call again once it is back.`;

export type Unavailability = {
	/** The request's method, when known. */
	method: string | undefined;
	stateDir: string;
	/** Whole seconds the request waited. */
	waitedSeconds: number;
	/** Why this request in particular was refused (the bridge holds too many), if it was. */
	why?: string | undefined;
	/** The failure that can never go away by itself, if that is what happened. */
	permanent?: string | undefined;
	/** Why the supervisor this client started exited without serving, if it did. */
	daemonProblem?: string | undefined;
	/** The last connect failure that may go away by itself. */
	lastFailure?: string | undefined;
	/** The supervisor runs but closes each connection before answering (see closedAtOnce). */
	refusing?: boolean | undefined;
};

/** Why a supervisor that accepts a connection and closes it before a byte does so: most likely its open-file limit. */
export function closedAtOnce(socketPath: string): string {
	return `the supervisor at ${socketPath} closed the connection before answering, again and again: it is most likely at its open-file limit (ulimit -n), with no descriptor left for this client`;
}

export function unavailableMessage({method, stateDir, waitedSeconds, why, permanent, daemonProblem, lastFailure, refusing}: Unavailability): string {
	const started = daemonProblem === undefined ? undefined : `the supervisor this client started could not start: ${daemonProblem}`;
	const reason = why ?? permanent ?? started ?? lastFailure ?? 'no supervisor is listening';
	const fix = refusing === true && why === undefined && permanent === undefined
		? `Its log (where it was started, or ${stateDir}/hangar.log for one a client started) says how many files it may open; raise that limit where it starts (ulimit -n 4096, or LimitNOFILE= for a service) or close some of its clients. This client reconnects by itself.`
		: permanent === undefined && daemonProblem !== undefined && why === undefined
		? `Fix that, then restart this client (the supervisor's log: ${stateDir}/hangar.log); or start this client with \`mcp-hangar --stdio --standalone\` to run its own supervisor.`
		: permanent === undefined
		? 'Start it with `mcp-hangar tui` or `mcp-hangar serve` (same --config or --state-dir); this client reconnects by itself. To run without a shared supervisor, start this client with `mcp-hangar --stdio --standalone`.'
		: 'This cannot work until that is fixed; or start this client with `mcp-hangar --stdio --standalone` to run its own supervisor.';
	return `mcp-hangar: "${method ?? 'request'}" failed: the supervisor for ${stateDir} is unavailable (${reason})${permanent === undefined ? `; waited ${waitedSeconds} s` : ''}. ${fix}`;
}
