import {describe, expect, it} from 'vitest';
import {InvalidTransitionError} from '../../../../source/core/base/errors.js';
import {createUpstreamMachine, upstreamEvents, upstreamInitialStates, upstreamStates, upstreamTransitions} from '../../../../source/core/engine/upstream/upstream-state.js';

describe('upstream transition table', () => {
	it('names only known states and events', () => {
		for (const [from, events] of Object.entries(upstreamTransitions)) {
			expect(upstreamStates).toContain(from);
			for (const [event, to] of Object.entries(events)) {
				expect(upstreamEvents).toContain(event);
				expect(upstreamStates).toContain(to);
			}
		}
	});

	it('throws a typed error for an event the table does not allow, and records nothing', () => {
		const machine = createUpstreamMachine('fx', 'cold');
		expect(() => machine.apply('started', 'impossible')).toThrow(InvalidTransitionError);
		try {
			machine.apply('crashed', 'impossible');
		} catch (error) {
			expect(error).toBeInstanceOf(InvalidTransitionError);
			expect((error as InvalidTransitionError).from).toBe('cold');
			expect((error as InvalidTransitionError).event).toBe('crashed');
			expect((error as Error).message).toBe('upstream "fx": event "crashed" is not allowed in state "cold"');
		}

		expect(machine.state).toBe('cold');
		expect(machine.transitions()).toEqual([]);
	});

	it('lands in needs-sign-in from a start or a running upstream, and leaves it only by a start or a person', () => {
		const machine = createUpstreamMachine('remote', 'cold');
		machine.apply('start', 'on demand');
		machine.apply('sign_in_needed', 'it answered 401 and hangar has no sign-in for it');
		expect(machine.state).toBe('needs-sign-in');
		expect(() => machine.apply('crashed', 'x')).toThrow(InvalidTransitionError);
		expect(() => machine.apply('start_failed', 'x')).toThrow(InvalidTransitionError);
		machine.apply('start', 'a person signed in');
		machine.apply('started', 'started');
		machine.apply('sign_in_needed', 'the refresh was refused');
		expect(machine.state).toBe('needs-sign-in');
		expect(Object.keys(upstreamTransitions['needs-sign-in']).sort()).toEqual(['disable', 'person_stop', 'quarantine', 'start']);
	});

	it('refuses to start a quarantined, disabled or invalid upstream', () => {
		for (const state of ['quarantined', 'disabled', 'invalid'] as const) {
			expect(() => createUpstreamMachine('fx', state).apply('start', 'x')).toThrow(InvalidTransitionError);
		}
	});

	it('every state is reachable from a state a upstream is created in', () => {
		const seen = new Set<string>(upstreamInitialStates);
		const queue: string[] = [...upstreamInitialStates];
		while (queue.length > 0) {
			const state = queue.shift()! as keyof typeof upstreamTransitions;
			for (const to of Object.values(upstreamTransitions[state])) {
				if (!seen.has(to!)) {
					seen.add(to!);
					queue.push(to!);
				}
			}
		}

		expect([...seen].sort()).toEqual([...upstreamStates].sort());
	});
});
