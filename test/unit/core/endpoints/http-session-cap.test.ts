import {describe, expect, it} from 'vitest';
import {Logger} from '../../../../source/core/base/logger.js';
import {makeRoomForSession, type BoundedSession} from '../../../../source/core/endpoints/http-session-cap.js';

function session(id: string, open: number, quietSince: number, inFlight = 0): BoundedSession & {closed: boolean} {
	const made = {id, label: `http#${id}`, open, quietSince, closed: false, gateway: {inFlight, close: async () => {}}};
	made.gateway.close = async () => {
		made.closed = true;
	};
	return made;
}

describe('makeRoomForSession', () => {
	const logger = new Logger(() => {}, 'silent');

	it('leaves the sessions alone below the bound', () => {
		const sessions = new Map([['a', session('a', 0, 1)]]);
		expect(makeRoomForSession(sessions, logger, 2)).toBeUndefined();
		expect(sessions.size).toBe(1);
	});

	it('at the bound closes the idle session quiet the longest, never one with a request open or a call in flight', () => {
		const streaming = session('streaming', 1, 0);
		const calling = session('calling', 0, 1, 1);
		const older = session('older', 0, 5);
		const newer = session('newer', 0, 9);
		const sessions = new Map<string, BoundedSession>([streaming, calling, newer, older].map(one => [one.id, one]));
		expect(makeRoomForSession(sessions, logger, 4)).toBeUndefined();
		expect([...sessions.keys()]).toEqual(['streaming', 'calling', 'newer']);
		expect([streaming.closed, calling.closed, older.closed, newer.closed]).toEqual([false, false, true, false]);
	});

	it('refuses with a reason when every session is busy', () => {
		const sessions = new Map<string, BoundedSession>([['a', session('a', 1, 0)], ['b', session('b', 0, 0, 2)]]);
		expect(makeRoomForSession(sessions, logger, 2)).toMatch(/at most 2 HTTP sessions at once, and each has a request open now; end a session you no longer use \(DELETE/);
		expect(sessions.size).toBe(2);
	});
});
