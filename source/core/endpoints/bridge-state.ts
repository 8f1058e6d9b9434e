/**
 * The `--stdio` bridge's connection to a supervisor, as data.
 *
 * - connecting: a connect to the supervisor's socket is under way.
 * - replaying: connected to a new supervisor after losing one; the client's
 *   initialize (and initialized) are being replayed there, so the client's
 *   session goes on without it knowing.
 * - open: messages flow both ways.
 * - draining: the supervisor said it is stopping; the bridge has ended its
 *   side and waits for the answers to what it sent, holding new messages.
 * - backoff: the socket is missing or refusing (a supervisor restarting);
 *   the next connect waits a growing delay. Messages are held, each request
 *   until its deadline.
 * - unusable: the socket can never work as configured (another user's, not a
 *   socket, a path too long, the supervisor refused the client's
 *   initialize); requests are answered with that error, nothing is retried.
 * - closed: the client closed stdin; the bridge exits.
 */
import {StateMachine, type TransitionTable} from '../base/state-machine.js';

export const bridgeStates = ['connecting', 'replaying', 'open', 'draining', 'backoff', 'unusable', 'closed'] as const;
export type BridgeState = (typeof bridgeStates)[number];

export const bridgeEvents = ['connected', 'replay', 'replayed', 'connect_failed', 'refused', 'lost', 'draining', 'drained', 'retry', 'client_closed'] as const;
export type BridgeEvent = (typeof bridgeEvents)[number];

export const bridgeTransitions: TransitionTable<BridgeState, BridgeEvent> = {
	connecting: {connected: 'open', replay: 'replaying', connect_failed: 'backoff', refused: 'unusable', client_closed: 'closed'},
	replaying: {replayed: 'open', lost: 'backoff', refused: 'unusable', client_closed: 'closed'},
	open: {draining: 'draining', lost: 'backoff', client_closed: 'closed'},
	draining: {drained: 'connecting', lost: 'backoff', client_closed: 'closed'},
	backoff: {retry: 'connecting', client_closed: 'closed'},
	unusable: {client_closed: 'closed'},
	closed: {},
};

export function createBridgeMachine(subject: string) {
	return new StateMachine<BridgeState, BridgeEvent>('bridge', subject, bridgeTransitions, 'connecting', 50);
}
