/**
 * The bound on per-client instances: each client session that sends a
 * per-client server a request gets its own upstream process, so without a
 * bound a client (or many) opening hundreds of sessions would start hundreds
 * of processes. At most `hangar.maxInstancesPerServer` instances of one
 * server, and `hangar.maxInstances` in all, exist at once; an instance
 * counts from its session's first request to the server until the session
 * closes, running or stopped while idle (its session's next request starts
 * it again). A new session's request past either bound is refused, saying
 * so; no other session's instance is stopped to make room.
 */
import {HangarError} from '../../base/errors.js';
import type {HangarSettings} from '../../config/read-config.js';
import {requestOperation} from '../request-context.js';

/**
 * What a refusal names as the operation: its text, or the request it is
 * made from (`tools/call "echo"`) only when a refusal is made, not on every
 * call that fits.
 */
export type OperationOf = string | {readonly method: string; readonly record: {readonly target: string | undefined}};


/** The refusal for a new instance of `server` for `session`, or undefined when it fits. */
export function instanceLimitRefusal(options: {
	server: string;
	session: string;
	operation: OperationOf;
	/** Instances of this server now. */
	ofServer: number;
	/** Instances of every per-client server now. */
	total: number;
	settings: Pick<HangarSettings, 'maxInstancesPerServer' | 'maxInstances'>;
}): HangarError | undefined {
	const {ofServer, total, settings} = options;
	const which =
		ofServer >= settings.maxInstancesPerServer
			? {limit: settings.maxInstancesPerServer, setting: 'maxInstancesPerServer', of: 'of this server'}
			: total >= settings.maxInstances
				? {limit: settings.maxInstances, setting: 'maxInstances', of: 'of all per-client servers together'}
				: undefined;
	if (which === undefined) return undefined;
	return new HangarError({
		code: 'UpstreamUnavailable',
		upstream: options.server,
		operation: typeof options.operation === 'string' ? options.operation : requestOperation(options.operation),
		message: `it runs one instance per client session, and the limit of ${which.limit} instances ${which.of} is reached (hangar.${which.setting}), so the client session ${options.session} gets none; no other session's instance was stopped`,
		hint: `Close client sessions you no longer use (each one's instance stops with it), or raise hangar.${which.setting} in the config.`,
		details: {limit: which.limit, setting: `hangar.${which.setting}`, instances: which.setting === 'maxInstances' ? total : ofServer},
	});
}
