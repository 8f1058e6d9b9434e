/**
 * What hangar advertises to a client at initialize besides tools: the union
 * of its upstreams' capabilities, live or cached.
 */
import {takesPart} from './routing/router.js';
import type {ServerCapabilities} from './upstream/catalog.js';
import type {Upstream} from './upstream/upstream.js';
import {isPlainObject} from '../wire/message-classifier.js';

/** What hangar can serve to a client besides tools, from every upstream's capabilities (see `Supervisor.capabilities`). */
export type ServedCapabilities = {
	resources?: {subscribe?: boolean; listChanged: boolean};
	prompts?: {listChanged: boolean};
	completions?: Record<string, never>;
	/** 2025-11-25 tasks: what any upstream offers of `list`, `cancel` and `requests.tools.call`. */
	tasks?: {list?: Record<string, never>; cancel?: Record<string, never>; requests?: {tools?: {call?: Record<string, never>}}};
};

/**
 * What hangar advertises to a client at initialize, besides tools: the
 * union of its upstreams' capabilities, live or cached (a cold upstream's
 * come from its last run). An upstream whose capabilities were never
 * known (a first run, before it started) may serve anything, so
 * resources, prompts and completions are offered for it; subscribe only
 * where an upstream is known to support it. Hangar itself sends
 * list_changed for every list, since the union changes as upstreams come
 * and go. Upstreams disabled in the config count for nothing.
 */
export function servedCapabilities(upstreams: Iterable<Upstream>): ServedCapabilities {
	const served: ServedCapabilities = {};
	for (const upstream of upstreams) {
		if (!takesPart(upstream)) continue;
		const caps: ServerCapabilities | undefined = upstream.capabilities;
		if (caps === undefined || caps.resources !== undefined) {
			served.resources ??= {listChanged: true};
			if (caps?.resources?.subscribe === true) served.resources.subscribe = true;
		}

		if (caps === undefined || caps.prompts !== undefined) served.prompts = {listChanged: true};
		if (caps === undefined || caps.completions !== undefined) served.completions = {};
		// Tasks only where an upstream is known to offer them: a client would otherwise create tasks nobody runs.
		const tasks = caps?.['tasks'];
		if (isPlainObject(tasks)) {
			served.tasks ??= {};
			if (tasks['list'] !== undefined) served.tasks.list = {};
			if (tasks['cancel'] !== undefined) served.tasks.cancel = {};
			if (isPlainObject(tasks['requests']) && isPlainObject(tasks['requests']['tools']) && tasks['requests']['tools']['call'] !== undefined) served.tasks.requests = {tools: {call: {}}};
		}
	}

	return served;
}
