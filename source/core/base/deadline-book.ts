/**
 * The deadlines of the requests in flight on one connection, on one timer,
 * paused and resumed together: a call's deadline stops while its upstream
 * waits for a client to answer a request of its own (an elicitation waits
 * for a person), and goes on from where it was once the answer is in. The
 * upstream holds every call in flight then, so the whole book pauses.
 *
 * Time is kept on a clock that stands still while the book is paused
 * (`now`), so a deadline is one number and pausing touches none of them.
 * The timer is set for the earliest deadline and left alone when a request
 * ends in time, which is almost always: adding a deadline later than the
 * one the timer waits for costs no timer call, and a timer that comes due
 * with nothing expired is set again for the earliest deadline left. It is
 * unref'd: a request in flight keeps the process alive by its own
 * transport, and a book with nothing to wait for must not.
 */
import {SteadySet} from './steady-collections.js';

/** Who a deadline is for: told once, when it expires. */
export type Expiring = {expire(): void};

export class Deadline {
	constructor(
		/** When it expires, on the book's clock. */
		readonly due: number,
		readonly owner: Expiring,
	) {}
}

export class DeadlineBook {
	private readonly deadlines = new SteadySet<Deadline>();
	private timer: NodeJS.Timeout | undefined;
	/** The due time the timer is set for (Infinity: none set). */
	private armedFor = Number.POSITIVE_INFINITY;
	/** Since when it is paused (performance.now()), undefined while it runs. */
	private pausedAt: number | undefined;
	/** How long it stood still in all, before the current pause. */
	private pausedFor = 0;
	private readonly onTimer = (): void => this.expireDue();

	/** The book's clock: performance.now() less the time it was paused. */
	private now(): number {
		return (this.pausedAt ?? performance.now()) - this.pausedFor;
	}

	get paused(): boolean {
		return this.pausedAt !== undefined;
	}

	get size(): number {
		return this.deadlines.size;
	}

	/** A deadline `ms` from now (on the book's clock: one added while paused starts when the book resumes). */
	add(ms: number, owner: Expiring): Deadline {
		const deadline = new Deadline(this.now() + ms, owner);
		this.deadlines.add(deadline);
		if (this.pausedAt === undefined && deadline.due < this.armedFor) this.arm(deadline.due);
		return deadline;
	}

	/** It is met (or given up): it never expires. The timer stays set; see the module comment. */
	remove(deadline: Deadline): void {
		this.deadlines.delete(deadline);
	}

	/** What is left of it, in ms, as of now. */
	left(deadline: Deadline): number {
		return Math.max(0, deadline.due - this.now());
	}

	pause(): void {
		if (this.pausedAt !== undefined) return;
		this.pausedAt = performance.now();
		this.disarm();
	}

	resume(): void {
		if (this.pausedAt === undefined) return;
		this.pausedFor += performance.now() - this.pausedAt;
		this.pausedAt = undefined;
		this.armForEarliest();
	}

	private arm(due: number): void {
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.armedFor = due;
		this.timer = setTimeout(this.onTimer, Math.max(1, Math.ceil(due - this.now())));
		this.timer.unref();
	}

	private disarm(): void {
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
		this.armedFor = Number.POSITIVE_INFINITY;
	}

	private armForEarliest(): void {
		if (this.pausedAt !== undefined) return;
		let earliest = Number.POSITIVE_INFINITY;
		for (const deadline of this.deadlines) if (deadline.due < earliest) earliest = deadline.due;
		if (earliest < this.armedFor) this.arm(earliest);
	}

	/** The timer came due: every deadline that has expired is told (each once), and the timer set for the earliest left. */
	private expireDue(): void {
		// The timer is never early: what it was set for has come, whatever the clock reads (a test's fake timers move only the timers).
		const now = Math.max(this.armedFor, this.now());
		this.timer = undefined;
		this.armedFor = Number.POSITIVE_INFINITY;
		if (this.pausedAt !== undefined) return;
		for (const deadline of this.deadlines) {
			if (deadline.due > now) continue;
			this.deadlines.delete(deadline);
			deadline.owner.expire();
		}

		this.armForEarliest();
	}
}
