import {describe, expect, it} from 'vitest';
import {InvalidTransitionError} from '../../../../source/core/base/errors.js';
import {createProviderMachine, providerEvents, providerInitialStates, providerStates, providerTransitions} from '../../../../source/core/engine/provider-state.js';

describe('provider transition table', () => {
	it('names only known states and events', () => {
		for (const [from, events] of Object.entries(providerTransitions)) {
			expect(providerStates).toContain(from);
			for (const [event, to] of Object.entries(events)) {
				expect(providerEvents).toContain(event);
				expect(providerStates).toContain(to);
			}
		}
	});

	it('throws a typed error for an event the table does not allow, and records nothing', () => {
		const machine = createProviderMachine('fx', 'cold');
		expect(() => machine.apply('started', 'impossible')).toThrow(InvalidTransitionError);
		try {
			machine.apply('crashed', 'impossible');
		} catch (error) {
			expect(error).toBeInstanceOf(InvalidTransitionError);
			expect((error as InvalidTransitionError).from).toBe('cold');
			expect((error as InvalidTransitionError).event).toBe('crashed');
			expect((error as Error).message).toBe('provider "fx": event "crashed" is not allowed in state "cold"');
		}

		expect(machine.state).toBe('cold');
		expect(machine.transitions()).toEqual([]);
	});

	it('refuses to start a quarantined, disabled or invalid upstream', () => {
		for (const state of ['quarantined', 'disabled', 'invalid'] as const) {
			expect(() => createProviderMachine('fx', state).apply('start', 'x')).toThrow(InvalidTransitionError);
		}
	});

	it('every state is reachable from a state a provider is created in', () => {
		const seen = new Set<string>(providerInitialStates);
		const queue: string[] = [...providerInitialStates];
		while (queue.length > 0) {
			const state = queue.shift()! as keyof typeof providerTransitions;
			for (const to of Object.values(providerTransitions[state])) {
				if (!seen.has(to!)) {
					seen.add(to!);
					queue.push(to!);
				}
			}
		}

		expect([...seen].sort()).toEqual([...providerStates].sort());
	});
});
