/**
 * A Set and a Map that keep their table when they empty. V8 shrinks a
 * Set's or a Map's table whenever a delete leaves it with fewer members than
 * half its buckets (a call into the runtime and a new table), so one that holds a member
 * while a call is in flight and loses it when the call ends (the calls in
 * flight of a connection, a transport, an upstream) made a new table on
 * every call: six of them cost about 2,000 instructions a call. A member of
 * their own, first and never shown, keeps them from emptying.
 *
 * Only what hangar uses of a Set and a Map is here; iteration is in
 * insertion order, as theirs.
 */

/** The member each holds of its own (never a caller's: the symbol is not exported). */
const held: unique symbol = Symbol('held');

export class SteadySet<T> {
	private readonly members = new Set<T | typeof held>([held]);

	get size(): number {
		return this.members.size - 1;
	}

	add(value: T): this {
		this.members.add(value);
		return this;
	}

	has(value: T): boolean {
		return this.members.has(value);
	}

	delete(value: T): boolean {
		return this.members.delete(value);
	}

	clear(): void {
		this.members.clear();
		this.members.add(held);
	}

	/** The members, oldest first. */
	values(): IterableIterator<T> {
		const values = this.members.values();
		// Its own member is the first: it was added first and is never deleted.
		values.next();
		return values as IterableIterator<T>;
	}

	[Symbol.iterator](): IterableIterator<T> {
		return this.values();
	}
}

export class SteadyMap<K, V> {
	private readonly entries = new Map<K | typeof held, V | undefined>([[held, undefined]]);

	get size(): number {
		return this.entries.size - 1;
	}

	get(key: K): V | undefined {
		return this.entries.get(key);
	}

	set(key: K, value: V): this {
		this.entries.set(key, value);
		return this;
	}

	has(key: K): boolean {
		return this.entries.has(key);
	}

	delete(key: K): boolean {
		return this.entries.delete(key);
	}

	clear(): void {
		this.entries.clear();
		this.entries.set(held, undefined);
	}

	/** The values, oldest first. */
	values(): IterableIterator<V> {
		const values = this.entries.values();
		values.next();
		return values as IterableIterator<V>;
	}

	/** The keys, oldest first. */
	keys(): IterableIterator<K> {
		const keys = this.entries.keys();
		keys.next();
		return keys as IterableIterator<K>;
	}
}
