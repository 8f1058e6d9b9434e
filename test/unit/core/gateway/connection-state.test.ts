import {describe, expect, it} from 'vitest';
import {
	checkRequest,
	connectionEvents,
	connectionStates,
	connectionTransitions,
	createConnectionMachine,
	type ConnectionEvent,
	type ConnectionState,
} from '../../../../source/core/gateway/connection-state.js';
import {InvalidTransitionError} from '../../../../source/core/base/errors.js';
import {StateMachine, nextState, toMermaid} from '../../../../source/core/base/state-machine.js';

/** The whole table, spelled out: every state × every event, undefined where the event is not allowed. */
const expected: Record<ConnectionState, Record<ConnectionEvent, ConnectionState | undefined>> = {
	awaiting_initialize: {initialize: 'initializing', initialize_failed: undefined, initialized: undefined, close: 'closed'},
	initializing: {initialize: undefined, initialize_failed: 'awaiting_initialize', initialized: 'ready', close: 'closed'},
	ready: {initialize: undefined, initialize_failed: undefined, initialized: undefined, close: 'closed'},
	closed: {initialize: undefined, initialize_failed: undefined, initialized: undefined, close: undefined},
};

const cells = connectionStates.flatMap(state => connectionEvents.map(event => ({state, event, to: expected[state][event]})));

function machineIn(state: ConnectionState, now: () => number = Date.now) {
	return new StateMachine<ConnectionState, ConnectionEvent>('connection', 'test-client', connectionTransitions, state, 20, now);
}

describe('connection transition table', () => {
	it('has a row for every state and only known events in it', () => {
		expect(Object.keys(connectionTransitions).sort()).toEqual([...connectionStates].sort());
		for (const state of connectionStates) {
			for (const event of Object.keys(connectionTransitions[state])) expect(connectionEvents).toContain(event);
		}
	});

	it.each(cells)('$state + $event -> $to', ({state, event, to}) => {
		expect(nextState(connectionTransitions, state, event)).toBe(to);
		const machine = machineIn(state);
		expect(machine.can(event)).toBe(to !== undefined);
		if (to === undefined) {
			expect(() => machine.apply(event, 'test')).toThrow(InvalidTransitionError);
			expect(machine.state).toBe(state);
		} else {
			expect(machine.apply(event, 'test').to).toBe(to);
			expect(machine.state).toBe(to);
		}
	});

	it('closed is terminal and reachable from every other state', () => {
		expect(connectionTransitions.closed).toEqual({});
		for (const state of connectionStates) {
			if (state !== 'closed') expect(connectionTransitions[state].close).toBe('closed');
		}
	});

	it('a new connection machine starts in awaiting_initialize and walks the normal handshake', () => {
		const machine = createConnectionMachine('stdio');
		expect(machine.state).toBe('awaiting_initialize');
		machine.apply('initialize', 'initialize request received');
		expect(machine.state).toBe('initializing');
		machine.apply('initialized', 'notifications/initialized received');
		expect(machine.state).toBe('ready');
		machine.apply('close', 'the transport closed');
		expect(machine.state).toBe('closed');
	});

	it('a failed initialize returns to awaiting_initialize so a corrected one can be sent', () => {
		const machine = createConnectionMachine('stdio');
		machine.apply('initialize', 'initialize request received');
		machine.apply('initialize_failed', 'initialize answered with an error');
		expect(machine.state).toBe('awaiting_initialize');
		expect(checkRequest(machine.state, 'initialize')).toEqual({allowed: true});
		machine.apply('initialize', 'second initialize request received');
		expect(machine.state).toBe('initializing');
	});

	it('renders every transition in the Mermaid diagram', () => {
		const diagram = toMermaid(connectionTransitions, 'awaiting_initialize');
		expect(diagram.split('\n')[1]).toBe('    [*] --> awaiting_initialize');
		const allowed = cells.filter(cell => cell.to !== undefined);
		expect(diagram.split('\n').slice(2).sort()).toEqual(allowed.map(({state, event, to}) => `    ${state} --> ${to}: ${event}`).sort());
	});
});

describe('checkRequest', () => {
	const methods = ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'no/such-method'] as const;
	const allowed: Record<ConnectionState, (method: string) => boolean> = {
		awaiting_initialize: method => method === 'initialize' || method === 'ping',
		initializing: method => method !== 'initialize',
		ready: method => method !== 'initialize',
		closed: () => false,
	};
	const matrix = connectionStates.flatMap(state => methods.map(method => ({state, method, allowed: allowed[state](method)})));

	it.each(matrix)('$state: $method allowed=$allowed', ({state, method, allowed}) => {
		const check = checkRequest(state, method);
		expect(check.allowed).toBe(allowed);
		if (!check.allowed) expect(check.reason.length).toBeGreaterThan(0);
	});

	it('explains a request before initialize with the method name and what to send first', () => {
		const check = checkRequest('awaiting_initialize', 'tools/call');
		expect(check).toEqual({allowed: false, reason: expect.stringContaining('"tools/call" was sent before "initialize"')});
		expect(check.allowed === false && check.reason).toContain('send "initialize" first');
	});

	it('explains a second initialize, in initializing and in ready', () => {
		for (const state of ['initializing', 'ready'] as const) {
			const check = checkRequest(state, 'initialize');
			expect(check.allowed).toBe(false);
			expect(check.allowed === false && check.reason).toMatch(/already initialized.*only once/);
		}
	});

	it('refuses everything once closed, ping included', () => {
		for (const method of methods) {
			expect(checkRequest('closed', method)).toEqual({allowed: false, reason: 'the connection is closed'});
		}
	});
});
