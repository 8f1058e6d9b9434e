/**
 * The lifecycle of one upstream, as data. States are lowercase everywhere
 * they are shown. The table is the single definition of what may happen; the
 * upstream applies events to it and never assigns a state directly.
 *
 * - cold: not running; starts on demand (lazy) or is waiting for its first start.
 * - starting: spawn + initialize + tools/list under a start timeout.
 * - ready: serving calls.
 * - degraded: running, but the circuit breaker is open; calls fail fast until the next probe.
 * - dead: crashed or failed to start; restarts with backoff while the restart budget holds.
 * - stopping: being shut down (stdin close, SIGTERM, SIGKILL); where it lands depends on why.
 * - stopped: stopped by a person; does not start on demand until started again.
 * - quarantined: never started, tools hidden, calls refused, until a person lifts it.
 * - disabled: switched off in the config.
 * - needs-sign-in: a remote upstream that asks for OAuth and has no working
 *   sign-in (none yet, or its tokens were refused and could not be
 *   refreshed). It is not retried by itself: a person signs in
 *   (`mcp-hangar auth NAME`), which starts it; its tools stay listed from
 *   the cache, marked, and its calls say how to sign in.
 * - invalid: its config entry cannot be used (an unknown key, a wrong type, an
 *   unset variable, a bad name); it never starts, its calls say why. Nothing
 *   leads out of it: a config reload that fixes the entry replaces the upstream.
 */
import {StateMachine, type TransitionRecord, type TransitionTable} from '../../base/state-machine.js';

export const upstreamStates = [
	'cold',
	'starting',
	'ready',
	'degraded',
	'dead',
	'stopping',
	'stopped',
	'quarantined',
	'disabled',
	'needs-sign-in',
	'invalid',
] as const;

export type UpstreamState = (typeof upstreamStates)[number];

export const upstreamEvents = [
	'start',
	'started',
	'start_failed',
	'crashed',
	'trip',
	'probe_ok',
	'probe_failed',
	'stop',
	'settle_cold',
	'settle_stopped',
	'settle_quarantined',
	'settle_disabled',
	'person_stop',
	'quarantine',
	'release',
	'disable',
	'sign_in_needed',
] as const;

export type UpstreamEvent = (typeof upstreamEvents)[number];

export const upstreamTransitions: TransitionTable<UpstreamState, UpstreamEvent> = {
	cold: {start: 'starting', person_stop: 'stopped', quarantine: 'quarantined', disable: 'disabled'},
	starting: {
		started: 'ready',
		start_failed: 'dead',
		sign_in_needed: 'needs-sign-in',
		stop: 'stopping',
	},
	ready: {trip: 'degraded', crashed: 'dead', sign_in_needed: 'needs-sign-in', stop: 'stopping'},
	degraded: {probe_ok: 'ready', probe_failed: 'degraded', crashed: 'dead', sign_in_needed: 'needs-sign-in', stop: 'stopping'},
	dead: {start: 'starting', person_stop: 'stopped', quarantine: 'quarantined', disable: 'disabled'},
	stopping: {
		settle_cold: 'cold',
		settle_stopped: 'stopped',
		settle_quarantined: 'quarantined',
		settle_disabled: 'disabled',
	},
	stopped: {start: 'starting', quarantine: 'quarantined', disable: 'disabled'},
	quarantined: {release: 'cold'},
	disabled: {release: 'cold', quarantine: 'quarantined'},
	'needs-sign-in': {start: 'starting', person_stop: 'stopped', quarantine: 'quarantined', disable: 'disabled'},
	invalid: {},
};

/** The states a upstream is created in: what its config entry and the state dir say (see Upstream's constructor). */
export const upstreamInitialStates: readonly UpstreamState[] = ['cold', 'quarantined', 'disabled', 'invalid'];

/** States in which an upstream process (or remote connection) may exist. */
export const runningStates: ReadonlySet<UpstreamState> = new Set(['starting', 'ready', 'degraded', 'stopping']);

export function createUpstreamMachine(name: string, initial: UpstreamState, historyLimit = 200, now: () => number = Date.now) {
	return new StateMachine<UpstreamState, UpstreamEvent>('upstream', name, upstreamTransitions, initial, historyLimit, now);
}

/** One upstream's state machine: the one owner of its state. */
export type UpstreamMachine = ReturnType<typeof createUpstreamMachine>;

/** A transition of one upstream, with its name: what the supervisor publishes. */
export type TransitionEvent = TransitionRecord<UpstreamState, UpstreamEvent> & {upstream: string};

/** Where a stop lands: cold (idle, restart), stopped (a person), quarantined, disabled. */
export type StopTarget = 'cold' | 'stopped' | 'quarantined' | 'disabled';

/** What a person or the config set: see Upstream.admin. */
export type AdminState = 'enabled' | 'disabled' | 'quarantined' | 'stopped';
