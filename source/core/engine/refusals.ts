/**
 * Every error the engine builds for a user or client: refusals (the upstream
 * is stopped, quarantined, disabled, dead, its config entry invalid, its
 * breaker open, a tool filtered out, hangar shutting down), failures of calls and starts, and routing errors (unknown tool or
 * server). Each names the upstream, the operation, what happened and what to
 * do next.
 *
 * "What to do next" often means a person's action on some surface: a key in
 * the TUI, a CLI verb, a management tool. Those are written once, in
 * `surfaces`, and every hint is built from that table, so a hint cannot name
 * a key or tool that does not exist: a drift test checks the table against
 * the TUI's keymap, the management tools and the CLI's verbs.
 */
import {HangarError, JsonRpcError, JsonRpcCode, type Audience, type Hint} from '../base/errors.js';
import type {ClientCapability} from '../link/client-side.js';
import {didYouMean, namesInBrief} from '../base/closest-match.js';

/** The actions a hint may send a person to, and where each can be done. */
export type SurfaceAction = 'start' | 'stop' | 'restart' | 'quarantine' | 'approve' | 'details' | 'logs';

export type Surfaces = {
	/** The TUI key and the keymap action it runs (source/tui/components/keymap.ts). */
	key?: {label: string; action: string};
	/** The management tool a client can call (gateway/management-tools.ts). */
	tool?: string;
	/** The `mcp-hangar` verb a shell user runs (source/cli/main.tsx). */
	cli?: string;
};

export const surfaces: Readonly<Record<SurfaceAction, Surfaces>> = {
	start: {key: {label: 's', action: 'start'}, tool: 'hangar_start', cli: 'start'},
	stop: {key: {label: 'x', action: 'stop'}, tool: 'hangar_stop', cli: 'stop'},
	restart: {key: {label: 'r', action: 'restart'}, tool: 'hangar_restart', cli: 'restart'},
	quarantine: {key: {label: 'u', action: 'quarantine'}, tool: 'hangar_quarantine', cli: 'quarantine'},
	approve: {key: {label: 'u', action: 'quarantine'}, cli: 'approve'},
	details: {key: {label: 'Enter', action: 'details'}, tool: 'hangar_details'},
	logs: {key: {label: 'l', action: 'logs'}, tool: 'hangar_details', cli: 'logs'},
};

function tui(action: SurfaceAction): string {
	return `key ${surfaces[action].key!.label} in mcp-hangar tui`;
}

/**
 * Which of an action's surfaces the reader has besides the TUI: a client the
 * tool (the CLI when there is none: approve is never offered over MCP), a
 * shell the command (the tool when there is none).
 */
function other(action: SurfaceAction, audience: Audience): {kind: 'tool'; name: string} | {kind: 'cli'; name: string} {
	const {tool, cli} = surfaces[action];
	const preferCli = audience !== 'mcp' ? cli !== undefined : tool === undefined;
	return preferCli ? {kind: 'cli', name: cli!} : {kind: 'tool', name: tool!};
}

/** Where a person does `action` on upstream `server`, as a phrase: "key s in mcp-hangar tui, or the hangar_start tool {...}" (a shell: "or mcp-hangar start fx"). */
export function where(action: SurfaceAction, server: string, audience: Audience = 'mcp'): string {
	const surface = other(action, audience);
	if (surface.kind === 'cli') return `${tui(action)}, or mcp-hangar ${surface.name} ${server}`;
	return `${tui(action)}, or the ${surface.name} tool {"server": "${server}"}`;
}

/** The same, in brief: "key s, or hangar_start" (a shell: "key s, or mcp-hangar start fx"). */
export function whereBrief(action: SurfaceAction, audience: Audience = 'mcp', server = 'SERVER'): string {
	const surface = other(action, audience);
	return `key ${surfaces[action].key!.label}, or ${surface.kind === 'tool' ? surface.name : `mcp-hangar ${surface.name} ${server}`}`;
}

/** "N.N s" for a duration in ms. */
export function seconds(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
}

function inAbout(at: number): string {
	return `${seconds(Math.max(0, at - Date.now()))} (at ${new Date(at).toISOString()})`;
}

/** Why a one-shot command's hint cannot send the reader to start or wait: nothing outlives the command. */ const onceExits = 'no hangar is running for this config: the one this command ran for itself exits with it';
/** When a dead upstream restarts: the one time a message gives, from now (a one-shot command's own hangar exits with it: never). */
function restartsItself(at: number, upstream: string, audience: Audience): string {
	if (audience === 'cli-once') return `No hangar is running for this config, and the one this command ran for itself exits with it: run the command again, or keep a hangar running (mcp-hangar serve, or mcp-hangar tui) to restart "${upstream}" by itself.`;
	return `Hangar restarts it by itself in ${inAbout(at)}; retry after that.`;
}

const removeDisabled = 'Remove "disabled": true from its entry in the config and restart hangar.';
/** What to do about an entry hangar cannot use: fix the file, which a running hangar reloads when it is saved. */
function fixEntry(upstream: string): string {
	return `Fix the entry "${upstream}" in hangar's config file (\`mcp-hangar --check-config\` lists every problem of the file at once); a running hangar applies the file when it is saved.`;
}

/** A problem a retry cannot fix (command not found, bad interpreter, ...): what to change, and that it is not retried by itself. */
function permanentHint(upstream: string, fix: string): Hint {
	return audience => `${fix} ${audience === 'cli-once' ? `Once fixed, run the command again (${onceExits}).`
		: `Hangar does not retry this by itself, since a retry cannot fix it: once fixed, start it again (${where('start', upstream, audience)}); a change to its config entry is tried at once.`}`;
}
const removeQuarantined = 'Remove "quarantined": true from its entry in the config and restart hangar';

/** What to do about a crashed or dead upstream, given when (if ever) it restarts by itself. */
export function restartHint(state: string, restartAt: number | undefined, upstream = 'SERVER'): Hint {
	if (state === 'dead' && restartAt !== undefined) return audience => restartsItself(restartAt, upstream, audience);
	if (state === 'dead') {
		return audience => {
			const logs = audience !== 'mcp' ? `mcp-hangar logs ${upstream}` : surfaces.logs.tool!;
			return `Its restart budget is spent: fix the cause (see its stderr: ${logs}, or ${tui('logs')}), then start it again (${whereBrief('start', audience, upstream)}).`;
		};
	}
	return 'Retry the call; hangar restarts crashed upstreams automatically.';
}

/** Why an upstream that is not running refuses `operation` instead of starting. */
export type Unavailable =
	| {state: 'degraded'; consecutiveFailures: number; lastError: string | undefined; nextProbeAt: number | undefined}
	| {state: 'dead'; reason: string; restartAt: number | undefined; permanent?: string | undefined}
	| {state: 'invalid'; reason: string}
	/** `server`: the configured server a person signs in to (a per-client instance or era twin has its own name). */
	| {state: 'needs-sign-in'; reason: string; server: string}
	| {state: 'stopped'; reason: string}
	| {state: 'quarantined'; reason: string; byConfig: boolean}
	| {state: 'disabled'};

export function unavailable(upstream: string, operation: string, why: Unavailable): HangarError {
	switch (why.state) {
		case 'degraded': {
			const at = why.nextProbeAt;
			return new HangarError({
				code: 'CircuitOpen',
				upstream,
				operation,
				message: `the circuit breaker is open after ${why.consecutiveFailures} consecutive failures (last: ${why.lastError ?? 'unknown'})`,
				hint: at === undefined ? 'A probe is running now; retry in a moment.' : `The next probe is at ${new Date(at).toISOString()} (in ${seconds(Math.max(0, at - Date.now()))}); retry after that.`,
				details: {nextRetryAt: at},
			});
		}

		case 'dead': {
			return new HangarError({
				code: 'UpstreamUnavailable',
				upstream,
				operation,
				message: `the upstream is dead: ${why.reason}`,
				hint: why.permanent === undefined ? restartHint('dead', why.restartAt, upstream) : permanentHint(upstream, why.permanent),
				details: {state: 'dead', nextRetryAt: why.restartAt, ...(why.permanent === undefined ? {} : {permanent: true})},
			});
		}

		case 'invalid': {
			return new HangarError({
				code: 'UpstreamUnavailable',
				upstream,
				operation,
				message: `its config entry cannot be used, so it never starts: ${why.reason}`,
				hint: fixEntry(upstream),
				details: {state: 'invalid'},
			});
		}

		case 'needs-sign-in': {
			return new HangarError({
				code: 'UpstreamUnavailable',
				upstream,
				operation,
				message: `the upstream needs sign-in (${why.reason})`,
				hint: signInHint(why.server),
				details: {state: 'needs-sign-in'},
			});
		}

		case 'stopped': {
			return new HangarError({
				code: 'UpstreamUnavailable',
				upstream,
				operation,
				message: `the upstream is stopped (${why.reason}) and does not start on demand`,
				hint: audience => `Start it again: ${where('start', upstream, audience)}.`,
				details: {state: 'stopped'},
			});
		}

		case 'quarantined': {
			return new HangarError({
				code: 'UpstreamUnavailable',
				upstream,
				operation,
				message: `the upstream is quarantined (${why.reason}) and its calls are refused`,
				hint: why.byConfig ? `${removeQuarantined} once you trust it.` : audience => `A person lifts it once they trust it: ${where('approve', upstream, audience)}.`,
				details: {state: 'quarantined'},
			});
		}

		case 'disabled': {
			return new HangarError({
				code: 'UpstreamUnavailable',
				upstream,
				operation,
				message: 'the upstream is disabled in the config',
				hint: removeDisabled,
				details: {state: 'disabled'},
			});
		}
	}
}

/** How a person signs in to a remote upstream that asks for OAuth: the `auth` verb opens their browser; a running hangar picks the sign-in up. */
export function signInHint(upstream: string): string {
	return `A person signs in once, in a terminal: mcp-hangar auth ${upstream} (it opens the browser, or prints the URL to open); every client of this hangar then uses that sign-in. Retry after that.`;
}

/** A person's start of an upstream that is switched off by a quarantine or the config. */
export function notStartable(upstream: string, state: 'quarantined' | 'disabled' | 'invalid', reason?: string): HangarError {
	if (state === 'invalid') return unavailable(upstream, 'start', {state, reason: reason ?? 'see its details'});
	return new HangarError({
		code: 'UpstreamUnavailable',
		upstream,
		operation: 'start',
		message: `the upstream is ${state}`,
		hint: state === 'quarantined' ? audience => `A person lifts the quarantine first: ${where('approve', upstream, audience)}.` : removeDisabled,
	});
}

/** An approval the config overrides. */
export function notApprovable(upstream: string, why: 'quarantined-by-config' | 'disabled'): HangarError {
	return new HangarError({
		code: 'UpstreamUnavailable',
		upstream,
		operation: 'approve',
		message: why === 'disabled' ? 'it is disabled in the config' : 'it is quarantined by "quarantined": true in the config',
		hint: why === 'disabled' ? removeDisabled : `${removeQuarantined}.`,
	});
}

/** A sign-in or sign-out the supervisor cannot apply to this upstream; of a `command` one, whose sign-in `mcp-hangar auth` refuses too, there is none. */
export function noSignIn(upstream: string, operation: 'sign-in' | 'sign-out', why: string, command = false): HangarError {
	return new HangarError({
		code: 'UpstreamUnavailable',
		upstream,
		operation,
		message: why,
		hint: command ? 'Sign-in applies only to remote ("url") servers that ask for OAuth; a command server takes its credentials from its config entry (env, args).' : `A person signs in in a terminal: mcp-hangar auth ${upstream} (--logout to sign out).`,
	});
}

/** A person's stop or quarantine of an upstream where it means nothing. */
export function pointlessAction(upstream: string, action: 'stop' | 'quarantine', state: string): HangarError {
	return action === 'stop'
		? new HangarError({code: 'UpstreamUnavailable', upstream, operation: 'stop', message: `it is ${state}, not running`, hint: 'Nothing to stop.'})
		: new HangarError({
				code: 'UpstreamUnavailable',
				upstream,
				operation: 'quarantine',
				message: state === 'invalid' ? 'its config entry cannot be used' : 'it is disabled in the config',
				hint: state === 'invalid' ? 'An invalid entry never runs; nothing to quarantine.' : 'A disabled upstream never runs; nothing to quarantine.',
			});
}

/** Who writes the state dir instead of this process, or why it cannot be written (see StateStore.whyNotSaved). */
export type NotSavable = {holder: {pid: number}} | {reason: string};

/**
 * A person's action that this hangar could not save, so it does not make it:
 * another live hangar process writes the state dir (this one takes over once
 * it exits), or the dir cannot be written.
 */
export function cannotSave(upstream: string, action: 'quarantine' | 'approve', why: NotSavable, stateDir: string): HangarError {
	if ('reason' in why) {
		return new HangarError({
			code: 'StateNotSaved',
			upstream,
			operation: action,
			message: `this hangar cannot save it to the state dir ${stateDir} (${why.reason}), so it did not ${action} it`,
			hint: 'Make the state dir writable by this user (and free space on its disk if it is full), then retry.',
			details: {saved: false, stateDir},
		});
	}

	const pid = why.holder.pid;
	const there: (audience: Audience) => string =
		action === 'quarantine'
			? audience => `its client can quarantine there (the ${surfaces.quarantine.tool!} tool), or stop it (kill ${pid}) and ${audience !== 'mcp' ? `run mcp-hangar ${surfaces.quarantine.cli!} ${upstream} again` : 'retry'}`
			: audience => `stop it (kill ${pid}) and ${audience !== 'mcp' ? `run mcp-hangar ${surfaces.approve.cli!} ${upstream} again` : 'retry'}`;
	return new HangarError({
		code: 'StateNotSaved',
		upstream,
		operation: action,
		message: `hangar process ${pid} writes the state dir ${stateDir}, so this hangar could not save the change and did not ${action} it`,
		hint: audience =>
			`This hangar takes the state dir over once that process exits (it checks every second): retry in a moment. If it keeps running, it is a hangar serving one client on its own (\`mcp-hangar --stdio\` with no tui or serve): ${there(audience)}${audience !== 'mcp' ? '; to avoid this, run `mcp-hangar serve` or the tui, which clients and these commands share' : ''}.`,
		details: {saved: false, writerPid: pid, stateDir},
	});
}

/** A person's action made in this run whose save failed: it holds until hangar exits, and the person is told so. */
export function notSaved(upstream: string, action: 'quarantine' | 'approve', done: string, error: Error & {file?: string; advice?: string}): HangarError {
	return new HangarError({
		code: 'StateNotSaved',
		upstream,
		operation: action,
		// What matters first, where a narrow surface (the TUI's flash at 80 columns) cuts the rest.
		message: `not saved, it holds only until hangar exits: ${done}, but writing ${error.file ?? 'the state dir'} failed (${error.message})`,
		hint: `${error.advice ?? "Free space on the state dir's disk or fix its permissions"}, then ${action} it again to save it.`,
		details: {saved: false, file: error.file ?? null},
	});
}

export function shuttingDown(upstream: string | undefined, operation: string): HangarError {
	return new HangarError({code: 'ShuttingDown', upstream, operation, message: 'hangar is shutting down', hint: 'Retry once hangar is running again.'});
}

export function unknownUpstream(upstream: string, known: readonly string[]): HangarError {
	return new HangarError({
		code: 'UpstreamUnavailable',
		upstream,
		operation: 'lookup',
		message: 'no upstream of that name is configured',
		hint: known.length > 0 ? `Configured upstreams: ${known.join(', ')}.` : 'The config has no upstreams.',
	});
}

/** A call that got no answer in time; `deadline` names the setting when the caller's own deadline applied. */
export function callTimeout(options: {
	upstream: string | undefined;
	tool: string;
	timeoutMs: number;
	/** `discovery`: during a cold start that a call waited on to learn the upstream's tools. */
	phase: 'start' | 'call' | 'discovery';
	setting: string | undefined;
}): HangarError {
	const limit = options.setting === undefined ? '' : `, the deadline set by hangar.${options.setting}`;
	const [during, after] =
		options.phase === 'call'
			? ['timed out waiting for the upstream to answer', 'the request was cancelled upstream']
			: [`timed out during the upstream's cold start${options.phase === 'discovery' ? ', before it listed its tools' : ''}`, 'the start goes on, so a retry may find it ready'];
	return new HangarError({
		code: 'CallTimeout',
		upstream: options.upstream,
		operation: `tools/call "${options.tool}"`,
		message: `no answer within ${seconds(options.timeoutMs)}${limit} (${during}); ${after}`,
		hint:
			options.setting === undefined
				? 'Raise "callTimeoutSeconds" for this server if the tool is slow, or check its logs.'
				: `Raise "${options.setting}" in the "hangar" settings (keep it below your client's own timeout) if the tool is slow, or check its logs.`,
		details: {phase: options.phase === 'call' ? 'call' : 'start', timeoutMs: options.timeoutMs},
	});
}

/**
 * A request other than a tool call (resources/read, prompts/get, ...) that
 * failed on the way: no answer in time, the connection lost, or a transport
 * failure. The upstream's own JSON-RPC errors are forwarded instead.
 */
/**
 * What to do about a request that failed without an answer: a subprocess's
 * stderr says why; a remote upstream has none, and the failure is most often
 * that its server is down or unreachable (fetch failed, ECONNREFUSED).
 */
function failedRequestHint(remoteUrl: string | undefined): string {
	if (remoteUrl === undefined) return 'Check the upstream\'s stderr in hangar\'s log.';
	let origin: string;
	try {
		// Only the origin: a path or query may carry a key.
		origin = new URL(remoteUrl).origin;
	} catch {
		origin = 'its url';
	}

	return `Check that its server at ${origin} is running and reachable from this machine; hangar's log for it has the details.`;
}

export function requestFailed(upstream: string, operation: string, why: {kind: 'timeout'; timeoutMs: number; setting: string | undefined} | {kind: 'lost' | 'failed'; message: string; remoteUrl?: string | undefined}): HangarError {
	if (why.kind === 'timeout') {
		return new HangarError({
			code: 'CallTimeout',
			upstream,
			operation,
			message: `no answer within ${seconds(why.timeoutMs)}${why.setting === undefined ? '' : `, the deadline set by hangar.${why.setting}`}; the request was cancelled upstream`,
			hint: why.setting === undefined ? 'Raise "callTimeoutSeconds" for this server if it is slow, or check its logs.' : `Raise "${why.setting}" in the "hangar" settings if the upstream is slow, or check its logs.`,
			details: {timeoutMs: why.timeoutMs},
		});
	}

	return new HangarError({
		code: why.kind === 'lost' ? 'UpstreamCrashed' : 'UpstreamError',
		upstream,
		operation,
		message: why.message,
		hint: why.kind === 'lost' ? 'Retry; hangar restarts crashed upstreams automatically.' : failedRequestHint(why.remoteUrl),
	});
}

export function callCancelled(upstream: string, tool: string): HangarError {
	return new HangarError({code: 'UpstreamError', upstream, operation: `tools/call "${tool}"`, message: 'cancelled by the client'});
}

export function callCrashed(upstream: string, tool: string, options: {what: string; stderr: string[]; hint: Hint; details: Record<string, unknown>}): HangarError {
	return new HangarError({
		code: 'UpstreamCrashed',
		upstream,
		operation: `tools/call "${tool}"`,
		message: `${options.what} while the call was in flight${options.stderr.length > 0 ? `; last stderr: ${options.stderr.join(' | ')}` : ''}`,
		hint: options.hint,
		details: {...options.details, stderrTail: options.stderr},
	});
}

export function callFailed(upstream: string, tool: string, message: string, remoteUrl?: string): HangarError {
	return new HangarError({code: 'UpstreamError', upstream, operation: `tools/call "${tool}"`, message, hint: failedRequestHint(remoteUrl)});
}

export function startInterrupted(upstream: string): HangarError {
	return new HangarError({code: 'UpstreamUnavailable', upstream, operation: 'start', message: 'the start was interrupted because the upstream is being stopped'});
}

export function startFailed(upstream: string, options: {detail: string; restartAt: number | undefined; remote: boolean; stderr: string[]; permanent?: string | undefined; check?: string | undefined}): HangarError {
	if (options.permanent !== undefined) {
		return new HangarError({
			code: 'StartFailed',
			upstream,
			operation: 'start',
			message: options.detail,
			hint: permanentHint(upstream, options.permanent),
			details: {stderrTail: options.stderr, nextRetryAt: undefined, permanent: true},
		});
	}

	const next = (audience: Audience): string => options.restartAt !== undefined ? restartsItself(options.restartAt, upstream, audience)
		: (audience === 'cli-once' ? `Run the command again (${onceExits}).` : `It stays dead until it is started again (${where('start', upstream, audience)}).`);
	const check = options.check ?? (options.remote
		? 'If it keeps failing, check that the server is running and reachable at its url, and its headers.'
		: 'If it keeps failing, check its command, args and env in the config and its stderr.');
	return new HangarError({
		code: 'StartFailed',
		upstream,
		operation: 'start',
		message: options.detail,
		hint: audience => `${next(audience)} ${check}`,
		details: {stderrTail: options.stderr, nextRetryAt: options.restartAt},
	});
}

export function rugPulled(upstream: string, reason: string, changes: unknown[]): HangarError {
	return new HangarError({
		code: 'UpstreamUnavailable',
		upstream,
		operation: 'tools/list',
		message: `quarantined: ${reason}`,
		hint: audience => `See the diff with ${audience !== 'mcp' ? tui('details') : surfaces.details.tool!}; if the change is expected, a person approves it again (${where('approve', upstream, audience)}).`,
		details: {state: 'quarantined', changes},
	});
}

// ---------------------------------------------------------------------------
// Routing: answered with -32602 (Invalid params), as a wrong name is a wrong argument.

export function unknownServer(server: string, known: string[]): JsonRpcError {
	return new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown server "${server}" in hangar_call. Configured servers: ${known.join(', ') || 'none'}.`, {
		error: 'UnknownServer',
		server,
		known,
	});
}

export function unknownServerTool(server: string, tool: string, tools: string[]): JsonRpcError {
	return new JsonRpcError(
		JsonRpcCode.InvalidParams,
		`Unknown tool "${tool}" on server "${server}" (hangar_call).${didYouMean(tool, tools)} Its ${tools.length} tools: ${namesInBrief(tools)}. Use hangar_find_tools to search every server.`,
		{error: 'UnknownTool', server, tool, tools},
	);
}

export function unknownTool(name: string, closest: string[], naming = 'Tool names are "<server>__<tool>"'): JsonRpcError {
	return new JsonRpcError(
		JsonRpcCode.InvalidParams,
		`Unknown tool "${name}".${closest.length > 0 ? ` Closest matches: ${closest.join(', ')}.` : ''} ${naming}; call tools/list, hangar_find_tools or hangar_list to see them.`,
		{error: 'UnknownTool', tool: name, closest},
	);
}

/** A call of a tool the server's config entry filters out (includeTools, excludeTools): refused as if the tool did not exist, with the rule. */
export function toolFiltered(server: string, tool: string, rule: string): JsonRpcError {
	return new JsonRpcError(
		JsonRpcCode.InvalidParams,
		`Tool "${tool}" of server "${server}" is not served: ${rule} in its config entry filters it out. Change that filter in hangar's config to serve it; tools/list and hangar_find_tools show the tools that are served.`,
		{error: 'ToolFiltered', server, tool, rule},
	);
}

/** What a client does with each capability an upstream's request needs. */
const capabilityMeaning: Record<ClientCapability, string> = {
	sampling: 'LLM completions for servers',
	elicitation: 'asking its user for input',
	roots: 'telling servers its workspace folders',
	tasks: 'running a server\'s sampling or elicitation request as a task',
};

/** The answer an upstream gets when none of hangar's clients can answer its request (`why`: a sentence fragment). */
export function noClientAnswer(upstream: string, method: string, capability: ClientCapability, why: string, details: Record<string, unknown>): HangarError {
	return new HangarError({
		code: 'NoClientAnswer',
		upstream,
		operation: method,
		message: `hangar relays it to one of its clients, but ${why}`,
		hint: `Call this server's tools from an MCP client that supports ${capability} (${capabilityMeaning[capability]}).`,
		details: {capability, ...details},
	});
}

/**
 * The answer an upstream gets when hangar held its request for a modern
 * (2026-07-28) client, which is asked in its call's `input_required` answer
 * and answers by retrying the call, and the client did not: it did not
 * retry within `ttlSeconds`, cancelled the call, or hangar holds as much as
 * it will for that client (`why`).
 */
export function heldInputUnanswered(upstream: string, method: string, capability: ClientCapability, why: string, details: Record<string, unknown>): HangarError {
	return new HangarError({
		code: 'NoClientAnswer',
		upstream,
		operation: method,
		message: `hangar held it for a 2026-07-28 client, which it asks in its call's input_required answer, but ${why}`,
		hint: 'The call it belonged to ends without the answer; the client may call again.',
		details: {capability, era: '2026-07-28', ...details},
	});
}

/**
 * The answer an upstream gets when hangar held its request for a task of a
 * modern (2026-07-28) client, which is asked it as an input request of the
 * task (on tasks/get) and answers with tasks/update, and the client did not:
 * it did not answer within `hangar.inputRequiredSeconds`, cancelled the
 * task, or hangar holds as much as it will for that client (`why`).
 */
export function taskInputUnanswered(upstream: string, method: string, capability: ClientCapability, why: string, details: Record<string, unknown>): HangarError {
	return new HangarError({
		code: 'NoClientAnswer',
		upstream,
		operation: method,
		message: `hangar held it for a 2026-07-28 client, which it asks as an input request of the task on tasks/get, but ${why}`,
		hint: 'The task goes on without the answer (or ends, if it was cancelled); ask again if it still needs one.',
		details: {capability, era: '2026-07-28', ...details},
	});
}

/**
 * The answer an upstream gets when hangar cannot tell which client its
 * request belongs to, or may not ask any client on a shared instance
 * (`why`: a sentence fragment). Hangar never guesses: a request that reached
 * the wrong client would show one person's data or question to another.
 */
export function clientUnknown(upstream: string, method: string, why: string, hint: string, details: Record<string, unknown>): HangarError {
	return new HangarError({
		code: 'NoClientAnswer',
		upstream,
		operation: method,
		message: `hangar cannot tell which client it belongs to: ${why}`,
		hint,
		details,
	});
}

/** MCP's "resource not found" (the SDK's ErrorCode has no name for it). */
export const resourceNotFoundCode = -32_002;

export function resourceNotFound(uri: string, serving: string[]): JsonRpcError {
	return new JsonRpcError(
		resourceNotFoundCode,
		`Resource not found: ${uri}. No upstream lists it, handed it out, or has a template that matches it${serving.length > 0 ? ` (upstreams that serve resources: ${serving.join(', ')})` : ''}. Call resources/list or resources/templates/list to see the URIs hangar serves; a URI of a particular upstream can be read as hangar://<server>/<uri>.`,
		{error: 'ResourceNotFound', uri, serving},
	);
}

export function unknownPrompt(name: string, known: string[]): JsonRpcError {
	return new JsonRpcError(
		JsonRpcCode.InvalidParams,
		`Unknown prompt "${name}".${known.length > 0 ? ` Prompts: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', ...' : ''}.` : ' No upstream serves prompts right now.'} Prompt names are "<namespace>__<prompt>" (or the prompt's own name for a server with "namespace": false); call prompts/list to see them.`,
		{error: 'UnknownPrompt', prompt: name},
	);
}

/** A cursor hangar did not hand out (or one for another list): -32602, as the protocol asks. */
export function invalidCursor(method: string, cursor: string): JsonRpcError {
	return new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for "${method}": cursor ${JSON.stringify(cursor)} is not a nextCursor this list gave (omit it for the first page).`, {error: 'InvalidCursor', cursor});
}

/** A task id this client session was not handed (another session's is unknown to it too: nothing crosses clients). */
export function unknownTask(method: string, taskId: string): JsonRpcError {
	return new JsonRpcError(
		JsonRpcCode.InvalidParams,
		`Invalid params for "${method}": no task ${JSON.stringify(taskId)} in this session; a task is reachable only from the session that created it, until its ttl ends (tasks/list lists them).`,
		{error: 'UnknownTask', taskId},
	);
}

/** The task's upstream crashed or stopped: what it held is gone. */
export function taskLost(upstream: string, operation: string, why: string): HangarError {
	return new HangarError({
		code: 'UpstreamCrashed',
		upstream,
		operation,
		message: `${why}; the task was lost with it and has no result`,
		hint: 'Call the tool again; hangar restarts crashed upstreams automatically.',
	});
}
