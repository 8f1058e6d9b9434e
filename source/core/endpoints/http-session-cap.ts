/**
 * The bound on the 2025 sessions one HTTP endpoint keeps. Each session costs
 * memory (its gateway session, its transport, its resume window's
 * bookkeeping) and may run per-client upstream instances; a session whose
 * client went without DELETE stays until hangar.httpSessionIdleSeconds
 * (ten minutes by default). Without a bound, a client that sends
 * `initialize` in a loop grows hangar's memory by thousands of sessions a
 * second.
 *
 * At the bound, a new `initialize` makes room by closing the least recently
 * used idle session (no request open, no call in flight: its client is gone
 * or quiet), as its idle expiry would have later; its client's next request
 * gets 404 and initializes again, as the transport specifies. When every
 * session is busy, the `initialize` is refused with 503 and a reason.
 * 2026-07-28 clients have no session: their identities have a bound of their
 * own (gateway/modern-clients.ts).
 */
import type {Logger} from '../base/logger.js';

/** The most 2025 sessions one HTTP endpoint keeps at once. */
export const maxHttpSessions = 1024;

/** What the bound needs to know of a session. */
export type BoundedSession = {
	id: string;
	label: string;
	/** HTTP requests of the session open now (a call's response stream, a GET stream). */
	open: number;
	/** When its last request closed (performance.now()). */
	quietSince: number;
	gateway: {readonly inFlight: number; close: () => Promise<void>};
};

/**
 * Makes room for one more session in `sessions`: at `max`, closes the least
 * recently used idle one. Returns why there is no room when every session
 * is busy (the `initialize` is then refused), else undefined.
 */
export function makeRoomForSession(sessions: Map<string, BoundedSession>, logger: Logger, max: number = maxHttpSessions): string | undefined {
	if (sessions.size < max) return undefined;
	let oldest: BoundedSession | undefined;
	for (const session of sessions.values()) {
		if (session.open > 0 || session.gateway.inFlight > 0) continue;
		if (oldest === undefined || session.quietSince < oldest.quietSince) oldest = session;
	}

	if (oldest === undefined) {
		return `Service Unavailable: hangar keeps at most ${max} HTTP sessions at once, and each has a request open now; end a session you no longer use (DELETE /mcp with its Mcp-Session-Id) or retry later`;
	}

	logger.info(`${oldest.label}: closing the session: the least recently used idle one, to make room for a new session (at most ${max} at once)`, {session: oldest.id});
	// Out of the map at once: a request naming it now gets 404, and the next initialize does not pick it again.
	sessions.delete(oldest.id);
	void oldest.gateway.close();
	return undefined;
}
