/**
 * The colour of each upstream state and breaker state. A colour is always
 * shown next to the word it stands for, never alone, so the screen reads the
 * same without colour (NO_COLOR, a monochrome terminal, a text capture).
 * Also the order rows are listed in: what needs a person's attention first.
 */
import type {BreakerState} from '../../core/engine/upstream/circuit-breaker.js';
import type {UpstreamState} from '../../core/engine/upstream/upstream-state.js';
import type {StatusEntry} from '../../core/views/views.js';

export type Tone = {color?: string; dim?: boolean; bold?: boolean};

export const stateTone: Record<UpstreamState, Tone> = {
	invalid: {color: 'red', bold: true},
	dead: {color: 'red', bold: true},
	degraded: {color: 'yellow', bold: true},
	'needs-sign-in': {color: 'yellow', bold: true},
	starting: {color: 'cyan'},
	stopping: {color: 'cyan'},
	ready: {color: 'green'},
	cold: {color: 'blue'},
	stopped: {dim: true},
	quarantined: {color: 'magenta'},
	disabled: {dim: true},
};

export const breakerTone: Record<BreakerState, Tone> = {
	closed: {dim: true},
	open: {color: 'red', bold: true},
	'half-open': {color: 'yellow'},
};

/** Rows are listed by this rank, then by name: trouble on top. */
export const stateRank: Record<UpstreamState, number> = {
	invalid: 0,
	dead: 1,
	degraded: 2,
	'needs-sign-in': 3,
	starting: 4,
	stopping: 5,
	ready: 6,
	cold: 7,
	stopped: 8,
	quarantined: 9,
	disabled: 10,
};

/** The states in `stateRank` order, for the header's counts. */
export const statesByRank = (Object.keys(stateRank) as UpstreamState[]).sort((a, b) => stateRank[a] - stateRank[b]);

/** An instance in one of these states runs no process and serves no call. */
const restingStates: ReadonlySet<UpstreamState> = new Set(['cold', 'stopped', 'disabled', 'quarantined']);

/**
 * The state the list, its order, its `/` filter and the header's counts go
 * by. A per-client server's own entry (its template) rests cold while one
 * instance per client session serves the calls: then it is its running
 * instances' state, the most urgent first, with their count: "ready ×2",
 * or "dead 1/3" when they differ (one of three dead). `label` fits
 * `width` when it can (the space goes first: "starting×12").
 */
export function shownState(entry: Pick<StatusEntry, 'state' | 'instances'>, width = Number.POSITIVE_INFINITY): {state: UpstreamState; label: string} {
	const running = entry.state === 'cold' ? (entry.instances ?? []).filter(instance => !restingStates.has(instance.state)) : [];
	if (running.length === 0) return {state: entry.state, label: entry.state};
	const state = running.map(instance => instance.state).reduce((urgent, candidate) => (stateRank[candidate] < stateRank[urgent] ? candidate : urgent));
	const inState = running.filter(instance => instance.state === state).length;
	const label = inState === running.length ? `${state} ×${inState}` : `${state} ${inState}/${running.length}`;
	return {state, label: label.length <= width ? label : label.replace(' ', '')};
}

