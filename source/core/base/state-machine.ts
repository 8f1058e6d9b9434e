/**
 * A small, generic table-driven state machine. Every machine in hangar (the
 * upstream lifecycle, the per-connection protocol state) is a table of
 * `state -> event -> next state`; applying an event that the table does not
 * list throws `InvalidTransitionError` instead of being ignored. Each applied
 * transition is recorded with its reason and time and handed to listeners, so
 * history and events come from one place. Diagrams in docs/ are generated
 * from the same tables (see `toMermaid`).
 */
import {InvalidTransitionError} from './errors.js';

export type TransitionTable<S extends string, E extends string> = Readonly<
	Record<S, Readonly<Partial<Record<E, S>>>>
>;

export type TransitionRecord<S extends string, E extends string> = {
	from: S;
	to: S;
	event: E;
	reason: string;
	at: number;
};

export function nextState<S extends string, E extends string>(
	table: TransitionTable<S, E>,
	from: S,
	event: E,
): S | undefined {
	return table[from][event];
}

export class StateMachine<S extends string, E extends string> {
	private current: S;
	private readonly history: Array<TransitionRecord<S, E>> = [];
	private readonly listeners = new Set<(record: TransitionRecord<S, E>) => void>();

	constructor(
		private readonly name: string,
		private readonly subject: string,
		private readonly table: TransitionTable<S, E>,
		initial: S,
		private readonly historyLimit = 200,
		private readonly now: () => number = Date.now,
	) {
		this.current = initial;
	}

	get state(): S {
		return this.current;
	}

	can(event: E): boolean {
		return nextState(this.table, this.current, event) !== undefined;
	}

	/** Applies `event`; throws InvalidTransitionError when the table does not allow it. */
	apply(event: E, reason: string): TransitionRecord<S, E> {
		const to = nextState(this.table, this.current, event);
		if (to === undefined) {
			throw new InvalidTransitionError(this.name, this.current, event, this.subject);
		}

		const record: TransitionRecord<S, E> = {from: this.current, to, event, reason, at: this.now()};
		this.current = to;
		this.history.push(record);
		if (this.history.length > this.historyLimit) this.history.shift();
		for (const listener of this.listeners) listener(record);
		return record;
	}

	transitions(): ReadonlyArray<TransitionRecord<S, E>> {
		return this.history;
	}

	onTransition(listener: (record: TransitionRecord<S, E>) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}

/** A Mermaid `stateDiagram-v2` generated from a transition table (`initial`: the state, or states, a machine may begin in). */
export function toMermaid<S extends string, E extends string>(
	table: TransitionTable<S, E>,
	initial: S | readonly S[],
): string {
	const lines = ['stateDiagram-v2', ...(typeof initial === 'string' ? [initial] : initial).map(state => `    [*] --> ${state}`)];
	for (const [from, events] of Object.entries(table) as Array<[S, Partial<Record<E, S>>]>) {
		for (const [event, to] of Object.entries(events) as Array<[E, S]>) {
			lines.push(`    ${from} --> ${to}: ${event}`);
		}
	}

	return lines.join('\n');
}
