import {describe, expect, it} from 'vitest';
import {InvalidTransitionError} from '../../../../source/core/base/errors.js';
import {StateMachine, type TransitionTable} from '../../../../source/core/base/state-machine.js';
import {connectionEvents, connectionTransitions, createConnectionMachine, type ConnectionEvent, type ConnectionState} from '../../../../source/core/gateway/connection-state.js';

function machineIn(state: ConnectionState, now: () => number = Date.now) {
	return new StateMachine<ConnectionState, ConnectionEvent>('connection', 'test-client', connectionTransitions, state, 20, now);
}

describe('StateMachine with the connection table', () => {
	it('throws InvalidTransitionError naming machine, subject, state and event for an event the table does not allow', () => {
		const machine = createConnectionMachine('client-7');
		let thrown: unknown;
		try {
			machine.apply('initialized', 'notifications/initialized before initialize');
		} catch (error) {
			thrown = error;
		}

		expect(thrown).toBeInstanceOf(InvalidTransitionError);
		const error = thrown as InvalidTransitionError;
		expect(error.name).toBe('InvalidTransitionError');
		expect(error.machine).toBe('connection');
		expect(error.subject).toBe('client-7');
		expect(error.from).toBe('awaiting_initialize');
		expect(error.event).toBe('initialized');
		expect(error.message).toBe('connection "client-7": event "initialized" is not allowed in state "awaiting_initialize"');
		// A refused event changes nothing and is not recorded.
		expect(machine.state).toBe('awaiting_initialize');
		expect(machine.transitions()).toEqual([]);
	});

	it('throws for a second initialize and for any event after close', () => {
		const machine = createConnectionMachine('c');
		machine.apply('initialize', 'first');
		expect(() => machine.apply('initialize', 'second')).toThrow(InvalidTransitionError);
		machine.apply('close', 'gone');
		for (const event of connectionEvents) {
			expect(() => machine.apply(event, 'after close')).toThrow(/is not allowed in state "closed"/);
		}

		expect(machine.transitions().map(record => record.event)).toEqual(['initialize', 'close']);
	});

	it('records from, to, event, reason and time of every applied transition, and tells listeners', () => {
		let clock = 1000;
		const machine = machineIn('awaiting_initialize', () => clock);
		const heard: unknown[] = [];
		const unsubscribe = machine.onTransition(record => heard.push(record));

		const first = machine.apply('initialize', 'initialize request received');
		clock = 2500;
		machine.apply('initialized', 'notifications/initialized received');
		unsubscribe();
		clock = 4000;
		machine.apply('close', 'the transport closed');

		expect(first).toEqual({from: 'awaiting_initialize', to: 'initializing', event: 'initialize', reason: 'initialize request received', at: 1000});
		expect(machine.transitions()).toEqual([
			{from: 'awaiting_initialize', to: 'initializing', event: 'initialize', reason: 'initialize request received', at: 1000},
			{from: 'initializing', to: 'ready', event: 'initialized', reason: 'notifications/initialized received', at: 2500},
			{from: 'ready', to: 'closed', event: 'close', reason: 'the transport closed', at: 4000},
		]);
		expect(heard).toEqual(machine.transitions().slice(0, 2));
	});

	it('keeps only the newest records up to its history limit', () => {
		type S = 'a' | 'b';
		type E = 'flip';
		const table: TransitionTable<S, E> = {a: {flip: 'b'}, b: {flip: 'a'}};
		const machine = new StateMachine<S, E>('toggle', 't', table, 'a', 3);
		for (let n = 1; n <= 5; n++) machine.apply('flip', `flip ${n}`);
		expect(machine.transitions().map(record => record.reason)).toEqual(['flip 3', 'flip 4', 'flip 5']);
	});
});
