import {describe, expect, it} from 'vitest';
import {RequestStates, refusedStateMessage} from '../../../../source/core/gateway/request-state.js';

const held = {client: 'session-1', upstream: 'every', heldRequestId: 4, method: 'elicitation/create'};

describe('RequestStates', () => {
	it('opens a state it minted once, for the client it was given to', () => {
		const states = new RequestStates();
		const token = states.mint(held)!;
		expect(token).not.toContain('every');
		expect(states.open(token, 'session-2')).toEqual({ok: false, reason: 'other-client'});
		expect(states.open(token, 'session-1')).toEqual({ok: true, held});
		expect(states.open(token, 'session-1')).toEqual({ok: false, reason: 'replayed'});
		expect(states.size).toBe(0);
		// Each refusal says what to do next.
		expect(refusedStateMessage('other-client')).toContain('only the client it was given to may retry with it');
	});

	it('refuses a tampered state, one from another process, and one that is not a state', () => {
		const states = new RequestStates();
		const token = states.mint(held)!;
		const raw = Buffer.from(token, 'base64url');
		for (const index of [0, 13, raw.length - 1]) {
			const changed = Buffer.from(raw);
			changed[index]! ^= 1;
			expect(states.open(changed.toString('base64url'), 'session-1'), `byte ${index}`).toEqual({ok: false, reason: 'tampered'});
		}

		expect(new RequestStates().open(token, 'session-1')).toEqual({ok: false, reason: 'tampered'});
		expect(states.open('short', 'session-1')).toEqual({ok: false, reason: 'malformed'});
		expect(states.open(42, 'session-1')).toEqual({ok: false, reason: 'malformed'});
		// The untampered state still opens.
		expect(states.open(token, 'session-1').ok).toBe(true);
		expect(refusedStateMessage('tampered')).toContain('integrity check');
	});

	it('refuses an expired state and hands expired ones back to be freed', () => {
		let now = 1000;
		const states = new RequestStates({ttlMs: 100, now: () => now});
		const first = states.mint(held)!;
		states.mint({...held, heldRequestId: 5});
		now = 1100;
		expect(states.open(first, 'session-1')).toEqual({ok: false, reason: 'expired'});
		// Refusing it does not forget it: its held request is still handed back to be freed.
		expect(states.expire()).toEqual([held, {...held, heldRequestId: 5}]);
		expect(states.size).toBe(0);
	});

	it('refuses a state retried on another method without using it up', () => {
		const states = new RequestStates();
		const token = states.mint(held)!;
		expect(states.open(token, 'session-1', 'tools/call')).toEqual({ok: false, reason: 'other-request', held});
		expect(states.open(token, 'session-1', 'elicitation/create')).toEqual({ok: true, held});
		expect(states.open(token, 'session-1', 'tools/call')).toEqual({ok: false, reason: 'replayed'});
	});

	it('refuses a state retried on the same method naming another tool, prompt or resource, without using it up', () => {
		const states = new RequestStates();
		const named = {...held, method: 'tools/call', target: 'ask'};
		const token = states.mint(named)!;
		expect(states.open(token, 'session-1', 'tools/call', 'echo')).toEqual({ok: false, reason: 'other-request', held: named});
		expect(states.open(token, 'session-1', 'tools/call')).toEqual({ok: false, reason: 'other-request', held: named});
		expect(states.open(token, 'session-1', 'tools/call', 'ask')).toEqual({ok: true, held: named});
	});

	it('keeps at most maxOutstanding states', () => {
		const states = new RequestStates({maxOutstanding: 2});
		expect(states.mint(held)).toBeDefined();
		expect(states.mint(held)).toBeDefined();
		expect(states.mint(held)).toBeUndefined();
	});
});
