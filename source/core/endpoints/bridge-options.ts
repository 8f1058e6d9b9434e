/**
 * What a `--stdio` bridge (bridge.ts) is given: its stdio, the supervisor's
 * socket, its limits and deadlines, and for unit tests an in-memory
 * connection and a clock moved by hand.
 */
import type {Duplex, Readable, Writable} from 'node:stream';
import type {Logger} from '../base/logger.js';
import type {Clock} from '../base/clock.js';
import type {ConnectFailure} from './socket-client.js';

export type BridgeOptions = {
	socketPath: string;
	/** The state dir, for messages. */
	stateDir: string;
	input: Readable;
	output: Writable;
	logger: Logger;
	maxMessageBytes: number;
	/** How long a request may wait for a supervisor before it is answered with SupervisorUnavailable. */
	requestTimeoutMs: number;
	/** A connection already made (the one that told `--stdio` a supervisor is there). */
	socket?: Duplex | undefined;
	/** How a connection to the supervisor is made (default: the socket at `socketPath`, within 2 s); a unit test passes in-memory streams. */
	connect?: (() => Promise<Duplex | ConnectFailure>) | undefined;
	/** Past this many bytes waiting for stdout (the socket), the socket (stdin) is not read until it drains (default 8 MiB, core/wire/backlog.ts). */
	backlogBytes?: number;
	/** When stdin closes, how long answers still owed may take (default 5 s). */
	drainMs?: number;
	backoff?: {initialMs: number; maxMs: number};
	/** How many messages may wait for a supervisor at once (default 10,000); past it requests are answered at once. */
	maxHeld?: number;
	/** Time for the held requests' deadlines and the reconnect backoff (a unit test moves it by hand). */
	clock?: Clock;
};
