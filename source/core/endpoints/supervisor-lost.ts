/**
 * What a person's command says when the supervisor it talks to closes the
 * local socket before answering. The usual cause when it is still running is
 * its open-file limit: a process at `ulimit -n` has no descriptor for a new
 * connection, so the kernel's connection is accepted and closed at once
 * (libuv's EMFILE fallback) and the CLI hears nothing but the close. Said as
 * a sentence that names the supervisor, whether it still runs, what became of
 * the request and what to do: never a stack trace, and never "no hangar is
 * running", which would send the person to start a second one.
 */
import {HangarError} from '../base/errors.js';
import {isAlive} from '../base/process-alive.js';
import type {EndpointOwner} from './socket-client.js';

/**
 * The error for `operation` (e.g. `connecting`, `quarantine "files"`) when
 * the supervisor at `socket` closed the connection; `sent`: the request had
 * gone out, so whether it was applied is unknown.
 */
export function supervisorLost(owner: EndpointOwner | undefined, socket: string, operation: string, cause: unknown, sent = false): HangarError {
	const who = owner === undefined ? `the hangar at ${socket}` : `hangar pid ${owner.pid} (mcp-hangar ${owner.kind})`;
	const running = owner === undefined || isAlive(owner.pid);
	const fate = sent ? ` Whether it applied the request is unknown: mcp-hangar status shows what it holds.` : ' The request was not delivered.';
	return new HangarError({
		code: 'SupervisorUnavailable',
		operation: `${operation} through ${who}`,
		message: running
			? `it closed the connection before answering, and it is still running: most likely it has no file descriptor left for this connection (it is at its open-file limit, ulimit -n; its log warns at start when the limit is low), or it is shutting down`
			: 'it closed the connection before answering: it has exited',
		hint: running
			? `${fate.trim()} Run the command again once fewer clients are attached, or restart the supervisor with a higher limit (ulimit -n 4096, or LimitNOFILE= for a service).`
			: `${fate.trim()} Run the command again: it starts or finds the next supervisor.`,
		details: {socket, pid: owner?.pid},
		cause,
	});
}
