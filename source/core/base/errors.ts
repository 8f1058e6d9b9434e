/**
 * Typed errors for everything a user or client can see. Each error names the
 * upstream (when there is one), the operation that failed, what happened and
 * what to do next, so a message can be read as a sentence and acted on. The
 * JSON-RPC codes are hangar's own, in the range the MCP SDK leaves free
 * (-32003..-32019); the README's error table is checked against this list by
 * a test.
 */
import {maskStrings, maskText} from './secret-mask.js';

export const ErrorCode = {
	/** A request arrived in a connection state that does not allow it (e.g. before `initialize`). */
	ProtocolSequence: -32003,
	/** The upstream is stopped, quarantined, disabled, dead or its config entry invalid, and will not be started for this call. */
	UpstreamUnavailable: -32004,
	/** The upstream's circuit breaker is open: calls fail fast until the next probe. */
	CircuitOpen: -32005,
	/** The upstream process exited while the call was in flight. */
	UpstreamCrashed: -32006,
	/** The call did not finish within the upstream's `callTimeoutSeconds`. */
	CallTimeout: -32007,
	/** The upstream could not be started (spawn failed, init failed, start timeout). */
	StartFailed: -32008,
	/** A message was larger than `hangar.maxMessageBytes`. */
	MessageTooLarge: -32009,
	/** The upstream connection failed (transport error), or the client cancelled. Protocol errors the upstream itself answers are forwarded with the upstream's own code. */
	UpstreamError: -32010,
	/** Hangar is shutting down and does not accept new calls. */
	ShuttingDown: -32011,
	/** The `--stdio` bridge could not reach the supervisor (TUI or serve) before the request's deadline, or lost it while a call was in flight. */
	SupervisorUnavailable: -32012,
	/** Sent to an upstream: no connected client can answer its request for sampling, elicitation or roots (none declared the capability), the client asked went away before answering, or 256 of its requests already wait for answers. */
	NoClientAnswer: -32013,
	/** A person's action (quarantine, approve) that this hangar cannot save: another live hangar process writes the state dir, or writing failed. */
	StateNotSaved: -32014,
	/** A client sent a request while it had `maxInFlightPerClient` (1,000) in flight already: each one's answer is held for it until it reads it. */
	TooManyInFlight: -32015,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

/** JSON-RPC standard codes hangar also produces. */
export const JsonRpcCode = {
	ParseError: -32_700,
	InvalidRequest: -32_600,
	MethodNotFound: -32_601,
	InvalidParams: -32_602,
	InternalError: -32_603,
} as const;

/**
 * Who reads an error: an MCP client (a model, and the person who may have the
 * TUI open), or a person at a shell running `mcp-hangar` commands. A hint
 * that sends the reader somewhere names what that reader has: a management
 * tool for a client, a command for a shell (and the TUI key for both).
 * `cli-once` is a shell command that ran its own hangar (none was running):
 * that hangar exits with the command, so nothing it planned happens later.
 */
export type Audience = 'mcp' | 'cli' | 'cli-once';

/** A hint, fixed or worded per audience. */
export type Hint = string | ((audience: Audience) => string);

export function hintFor(hint: Hint | undefined, audience: Audience): string | undefined {
	return typeof hint === 'function' ? hint(audience) : hint;
}

export type HangarErrorOptions = {
	code: ErrorCodeName;
	upstream?: string | undefined;
	operation: string;
	/** What happened, as a sentence fragment without the upstream name. */
	message: string;
	/** What to do next. */
	hint?: Hint | undefined;
	/** Extra machine-readable facts (exit code, next retry time, ...). */
	details?: Record<string, unknown> | undefined;
	cause?: unknown;
};

export class HangarError extends Error {
	readonly codeName: ErrorCodeName;
	readonly code: number;
	readonly upstream: string | undefined;
	readonly operation: string;
	/** What to do next, worded for MCP clients (see `hintFor`). */
	readonly hint: string | undefined;
	private readonly hints: Hint | undefined;
	/** The message without the hint: who, what and what happened (a screen may show the hint apart). */
	readonly sentence: string;
	readonly details: Record<string, unknown>;

	constructor(options: HangarErrorOptions) {
		const subject = options.upstream === undefined ? '' : `upstream "${options.upstream}": `;
		// Every error hangar shows passes through here: a URL with credentials or a token in a failure's
		// text is masked once, for every surface (clients, CLI, TUI, logs).
		const sentence = maskText(`${subject}${options.operation} failed: ${options.message}.`);
		const hint = hintFor(options.hint, 'mcp');
		super(hint === undefined ? sentence : `${sentence} ${hint}`, {cause: options.cause});
		this.sentence = sentence;
		this.hints = options.hint;
		this.name = 'HangarError';
		this.codeName = options.code;
		this.code = ErrorCode[options.code];
		this.upstream = options.upstream;
		this.operation = options.operation;
		this.hint = hint;
		// A rug pull's diff (`changes`) is shown as the upstream served it: a person must see exactly what changed.
		this.details = Object.fromEntries(Object.entries(options.details ?? {}).map(([key, value]) => [key, key === 'changes' ? value : maskStrings(value)]));
	}

	/** The hint worded for `audience`. */
	hintFor(audience: Audience): string | undefined {
		return hintFor(this.hints, audience);
	}

	/** The whole message, its hint worded for `audience`. */
	messageFor(audience: Audience): string {
		const hint = this.hintFor(audience);
		return hint === undefined ? this.sentence : `${this.sentence} ${hint}`;
	}

	/** The `data` member of a JSON-RPC error built from this error, its hint worded for `audience`. */
	toData(audience: Audience = 'mcp'): Record<string, unknown> {
		return {
			error: this.codeName,
			upstream: this.upstream,
			operation: this.operation,
			hint: this.hintFor(audience),
			...this.details,
		};
	}
}

/**
 * A JSON-RPC error answered as it is: a standard code (invalid params, ...)
 * or a code an upstream answered with, its message and data.
 */
export class JsonRpcError extends Error {
	constructor(
		readonly code: number,
		message: string,
		readonly data?: unknown,
	) {
		super(message);
		this.name = 'JsonRpcError';
	}
}

/** Raised when a state machine is asked for a transition its table does not allow. */
export class InvalidTransitionError extends Error {
	constructor(
		readonly machine: string,
		readonly from: string,
		readonly event: string,
		readonly subject: string,
	) {
		super(`${machine} "${subject}": event "${event}" is not allowed in state "${from}"`);
		this.name = 'InvalidTransitionError';
	}
}

export function errorMessage(error: unknown): string {
	if (error instanceof Error) return error.message;
	return String(error);
}
