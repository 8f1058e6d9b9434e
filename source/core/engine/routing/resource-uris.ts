/**
 * Resource URIs across upstreams: which upstream a URI belongs to, and how a
 * URI of one upstream that another already owns is told apart.
 *
 * - A URI keeps its own form unless another upstream owns it; then it is
 *   exposed as `hangar://<server>/<its own URI, verbatim>` (see `hangarUri`),
 *   which always routes to that server. With one upstream nothing is ever
 *   rewritten.
 * - Ownership, strongest first: a URI an upstream lists (first in config
 *   order), a URI an upstream handed out in a result (first to hand it out,
 *   remembered in a bounded book), a URI that matches an upstream's template
 *   (the most specific template, then config order).
 *
 * Template matching is the SDK's `UriTemplate` (RFC 6570, as upstreams built
 * on the SDK match their own templates), which is why this module is one of
 * the few in the engine that import the SDK.
 */
import {UriTemplate} from '@modelcontextprotocol/client';

export const hangarScheme = 'hangar://';

/** How an upstream's URI is exposed when another upstream owns the same URI. */
export function hangarUri(server: string, uri: string): string {
	return `${hangarScheme}${server}/${uri}`;
}

/** `hangar://<server>/<uri>` taken apart; undefined for any other URI. */
export function parseHangarUri(uri: string): {server: string; uri: string} | undefined {
	if (!uri.startsWith(hangarScheme)) return undefined;
	const slash = uri.indexOf('/', hangarScheme.length);
	if (slash === -1) return undefined;
	return {server: uri.slice(hangarScheme.length, slash), uri: uri.slice(slash + 1)};
}

/** One upstream's resource template, compiled once. */
export class TemplateMatcher {
	private readonly template: UriTemplate | undefined;
	/** The template's literal text: more of it is a more specific template. */
	readonly specificity: number;

	constructor(readonly uriTemplate: string) {
		try {
			this.template = new UriTemplate(uriTemplate);
		} catch {
			// A template the SDK cannot parse matches nothing; its resources stay readable by their listed URIs.
			this.template = undefined;
		}

		this.specificity = uriTemplate.replaceAll(/\{[^}]*\}/g, '').length;
	}

	matches(uri: string): boolean {
		try {
			return this.template?.match(uri) !== null && this.template !== undefined;
		} catch {
			return false;
		}
	}
}

/**
 * URIs handed out in results (a tool's `resource_link` or embedded resource,
 * a prompt's embedded resource) that no list names: which upstream handed
 * each out first. Bounded: the least recently used are forgotten past
 * `limit`, so neither an upstream nor a client can grow it without end; a
 * forgotten URI is still routed by template, or to the only upstream that
 * serves resources.
 */
export class UriBook {
	private readonly owners = new Map<string, string>();

	constructor(readonly limit = 10_000) {}

	get size(): number {
		return this.owners.size;
	}

	/** Who handed `uri` out first (and keeps it), refreshing its place. */
	owner(uri: string): string | undefined {
		const owner = this.owners.get(uri);
		if (owner !== undefined) {
			this.owners.delete(uri);
			this.owners.set(uri, owner);
		}

		return owner;
	}

	/** Records that `server` handed out `uri`, unless someone else already did; returns the owner. */
	claim(uri: string, server: string): string {
		const owner = this.owner(uri);
		if (owner !== undefined) return owner;
		this.owners.set(uri, server);
		if (this.owners.size > this.limit) this.owners.delete(this.owners.keys().next().value!);
		return server;
	}
}
