/**
 * A request's cancellation, made for the hot path: `Cancellation` tells its
 * listeners once when it is cancelled, and costs a plain object until
 * someone needs a real `AbortSignal` (fetch, the SDK, a wait on timers),
 * which `signal` then makes on demand and keeps in step. An AbortController
 * per call, an `AbortSignal` (an `EventTarget`) and Node's listener
 * bookkeeping cost more than the rest of a call's own cancellation handling.
 *
 * `CancelSource` is what a wait accepts: either one, used through
 * `onCancel`/`offCancel`.
 */

export class Cancellation {
	private cancelled = false;
	private why: unknown;
	/** The first listener, and the rest: a call has one (its upstream request), rarely more. */
	private first: (() => void) | undefined;
	private rest: Array<() => void> | undefined;
	private controller: AbortController | undefined;

	get aborted(): boolean {
		return this.cancelled;
	}

	/** Why it was cancelled (undefined while it was not). */
	get reason(): unknown {
		return this.why;
	}

	/** A real AbortSignal that aborts with it (made on first use, aborted already when it was cancelled before). */
	get signal(): AbortSignal {
		if (this.controller === undefined) {
			this.controller = new AbortController();
			if (this.cancelled) this.controller.abort(this.why);
		}

		return this.controller.signal;
	}

	/** Cancels it, once: its signal (if made) aborts and each listener is called, in the order they came. */
	abort(reason: unknown): void {
		if (this.cancelled) return;
		this.cancelled = true;
		this.why = reason;
		this.controller?.abort(reason);
		const first = this.first;
		const rest = this.rest;
		this.first = undefined;
		this.rest = undefined;
		first?.();
		if (rest !== undefined) for (const listener of rest) listener();
	}

	/** Calls `listener` once when it is cancelled (never, if it already was: check `aborted` first, as with an AbortSignal). */
	listen(listener: () => void): void {
		if (this.cancelled) return;
		if (this.first === undefined) this.first = listener;
		else (this.rest ??= []).push(listener);
	}

	unlisten(listener: () => void): void {
		if (this.first === listener) {
			this.first = this.rest?.shift();
			return;
		}

		const at = this.rest?.indexOf(listener) ?? -1;
		if (at >= 0) this.rest!.splice(at, 1);
	}
}

/** What a wait can be cancelled by: a request's `Cancellation`, or an `AbortSignal`. */
export type CancelSource = Cancellation | AbortSignal;

/** Calls `listener` once when `source` is cancelled. */
export function onCancel(source: CancelSource, listener: () => void): void {
	if (source instanceof Cancellation) source.listen(listener);
	else source.addEventListener('abort', listener, {once: true});
}

export function offCancel(source: CancelSource, listener: () => void): void {
	if (source instanceof Cancellation) source.unlisten(listener);
	else source.removeEventListener('abort', listener);
}

/** A real AbortSignal for `source`. */
export function signalOf(source: CancelSource): AbortSignal {
	return source instanceof Cancellation ? source.signal : source;
}

/**
 * The params of the client's notifications/cancelled that cancelled
 * `source`, when its reason carries them (the engine's `RequestAbort`):
 * what the upstream is sent for its own request, so it reads the client's
 * reason (and any other member) as the client wrote it.
 */
export function cancelNotice(source: CancelSource | undefined): Record<string, unknown> | undefined {
	const notice: unknown = (source?.reason as {notice?: unknown} | undefined)?.notice;
	return typeof notice === 'object' && notice !== null && !Array.isArray(notice) ? notice as Record<string, unknown> : undefined;
}
