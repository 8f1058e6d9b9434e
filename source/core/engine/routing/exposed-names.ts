/**
 * Who keeps each exposed name (the router's naming rules, apart from its
 * routes): the first upstream in config order that exposes a name keeps it,
 * names starting with "hangar_" are hangar's own, and an upstream's own name
 * that only one exposed item has stands for it too.
 */
import type {Upstream} from '../upstream/upstream.js';
import {exposedName} from './tool-names.js';
import type {NameClash} from './router.js';


/** Tools are hidden once a person or the config switched the upstream off, including while it is stopping towards that, and while its entry is invalid. */
export function isHidden(upstream: Upstream): boolean {
	return upstream.admin !== 'enabled' || upstream.state === 'invalid';
}

/** Upstreams disabled in the config, or whose entry cannot be used, take no part: they never run, and must not keep names from others. */
export function takesPart(upstream: Upstream): boolean {
	return !upstream.config.disabled && upstream.config.invalid === undefined;
}

/** Tool and prompt names that start with this are hangar's own (its management tools). */
export const reservedPrefix = 'hangar_';

/**
 * Who keeps each exposed name, in config order: the first upstream that
 * exposes it (a hidden one too, so a name does not move between upstreams
 * as people stop and start them), except that names starting with
 * "hangar_" are hangar's own. Returns the owners, the visible exposed set
 * and the clashes.
 */
export function ownNames<D extends {name: string}, E extends {name: string; server: string}>(
	kind: 'tool' | 'prompt',
	present: Upstream[],
	list: (upstream: Upstream) => readonly D[],
	make: (upstream: Upstream, definition: D, name: string) => E,
): {owners: Map<string, E>; exposed: E[]; clashes: NameClash[]} {
	const owners = new Map<string, E>();
	const exposed: E[] = [];
	const clashes = new Map<string, NameClash>();
	const clash = (name: string, owner: string, shadowed: string) => {
		const found = clashes.get(name) ?? {kind, name, owner, shadowed: []};
		if (!found.shadowed.includes(shadowed)) found.shadowed.push(shadowed);
		clashes.set(name, found);
	};

	for (const upstream of present) {
		const hidden = isHidden(upstream);
		for (const definition of list(upstream)) {
			const name = exposedName(upstream.config.namespace, definition.name);
			const current = owners.get(name);
			// An upstream that lists the same name twice would make the list ambiguous: the first counts.
			if (current?.server === upstream.name) continue;
			if (current !== undefined) {
				clash(name, current.server, upstream.name);
				continue;
			}

			if (upstream.config.namespace === false && name.startsWith(reservedPrefix)) {
				clash(name, 'hangar', upstream.name);
				continue;
			}

			const entry = make(upstream, definition, name);
			owners.set(name, entry);
			if (!hidden) exposed.push(entry);
		}
	}

	return {owners, exposed, clashes: [...clashes.values()]};
}

/**
 * Exposed items by their upstream's own name, for the names only one of them
 * has and no exposed name takes: a client written against an upstream
 * directly (its docs, a prompt, a test suite) calls `read_graph`, and with
 * one upstream serving it that can only mean `memory__read_graph`. A name two
 * upstreams share stays unknown, so the client is told the choices.
 */
export function uniqueOwnNames<T extends {name: string}>(items: readonly T[], own: (item: T) => string, exposed: ReadonlyMap<string, T>): Map<string, T> {
	const seen = new Map<string, T | null>();
	for (const item of items) {
		const name = own(item);
		if (name === item.name || exposed.has(name)) continue;
		seen.set(name, seen.has(name) ? null : item);
	}

	const unique = new Map<string, T>();
	for (const [name, item] of seen) if (item !== null) unique.set(name, item);
	return unique;
}

/** A clash as a sentence for the log and `--check-config`: who keeps the name, and how the others stay reachable. */
export function describeClash(clash: NameClash): string {
	const others = clash.shadowed.map(server => `"${server}"`).join(', ');
	const keeper = clash.owner === 'hangar' ? 'hangar keeps it for its own tools (names starting with "hangar_")' : `"${clash.owner}" keeps it (first in config order)`;
	const reach = clash.kind === 'tool' ? `; call the other with hangar_call {"server", "tool"}` : '';
	return `name clash: ${clash.kind} "${clash.name}" is exposed by ${clash.owner === 'hangar' ? '' : `"${clash.owner}" and `}${others}: ${keeper}, the one of ${others} is not listed${reach}. Give one of them a "namespace" to expose both.`;
}
