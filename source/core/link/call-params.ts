/**
 * A tools/call's params as the upstream is sent them: the tool's name and
 * arguments, the `_meta` and `task` hangar forwards, and every other member
 * of the client's params as it came (a member an extension or a later
 * protocol revision defines reaches the upstream, as on resources/read).
 */

/**
 * The members of a tools/call's params hangar reads and sends itself: a
 * 2026-07-28 client's `inputResponses` and `requestState` answer hangar's
 * own input rounds (gateway/held-inputs.ts), never the upstream's.
 */
const read: ReadonlySet<string> = new Set(['name', 'arguments', '_meta', 'task', 'inputResponses', 'requestState']);

export function toolCallParams(
	name: string,
	args: Record<string, unknown> | undefined,
	meta: Record<string, unknown> | undefined,
	task: Record<string, unknown> | undefined,
	given: Record<string, unknown> | undefined,
): Record<string, unknown> {
	const params: Record<string, unknown> = {name};
	if (args !== undefined) params['arguments'] = args;
	if (meta !== undefined && Object.keys(meta).length > 0) params['_meta'] = meta;
	if (task !== undefined) params['task'] = task;
	if (given === undefined) return params;
	for (const key of Object.keys(given)) {
		// defineProperty: a member named "__proto__" stays a member.
		if (!read.has(key)) Object.defineProperty(params, key, {value: given[key], enumerable: true, writable: true, configurable: true});
	}

	return params;
}
