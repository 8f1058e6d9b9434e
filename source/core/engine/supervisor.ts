/**
 * The supervisor: every configured upstream as a `Provider`, the one state
 * model that every surface reads (gateway `tools/list`, `hangar_list`, the
 * call path, later the TUI). It publishes typed events (transitions, tool
 * set changes, activity) and answers status from memory only, never by
 * asking an upstream.
 *
 * The exposed tool set is derived from the providers: tools of quarantined,
 * disabled and person-stopped upstreams are hidden, because calls to them
 * would be refused; everything else is listed, from the live list or the
 * cache, with the provider's state and the list's age alongside.
 */
import {EventEmitter} from 'node:events';
import Fuse from 'fuse.js';
import {ClientRegistry} from './clients.js';
import type {HangarConfig, ToolDefinition} from '../config/config.js';
import {HangarError} from '../base/errors.js';
import {describeApproval} from './pins.js';
import type {Logger} from '../base/logger.js';
import {Provider, type CallContext, type TransitionEvent} from './provider.js';
import type {StateStore} from './state-store.js';
import {exposedToolName} from './tool-names.js';
import {ToolSearchIndex, type ToolSearchHit} from './tool-search.js';
import type {CallToolResult} from '../upstream/connection.js';

export type ExposedTool = {
	/** `<server>__<tool>` as clients see it. */
	name: string;
	server: string;
	/** The upstream's own name for it. */
	tool: string;
	definition: ToolDefinition;
};

/** A person's commands on one upstream (see `Supervisor.command`). */
export const commands = ['start', 'stop', 'restart', 'quarantine', 'approve'] as const;
export type Command = (typeof commands)[number];

export function isCommand(value: unknown): value is Command {
	return commands.some(command => command === value);
}

/** Tools are hidden once a person or the config switched the upstream off, including while it is stopping towards that. */
function isHidden(provider: Provider): boolean {
	return provider.admin !== 'enabled';
}

export class Supervisor extends EventEmitter<{
	transition: [TransitionEvent];
	toolsChanged: [];
	activity: [string];
}> {
	readonly providers = new Map<string, Provider>();
	private exposed: ExposedTool[] = [];
	private byName = new Map<string, ExposedTool>();
	private signature = '';
	private dirty = true;
	private emitScheduled = false;
	private changedSinceEmit = false;
	private initialized = false;
	private shuttingDown = false;
	private fuse: Fuse<ExposedTool> | undefined;
	private searchIndex: ToolSearchIndex<ExposedTool> | undefined;
	/** When this supervisor was created. */
	readonly startedAt = Date.now();
	/** The MCP clients connected to it right now (every gateway session adds itself). */
	readonly clients = new ClientRegistry();

	constructor(
		readonly config: HangarConfig,
		readonly store: StateStore,
		private readonly logger: Logger,
	) {
		super();
		this.setMaxListeners(100);
		for (const server of config.servers) {
			const provider = new Provider(server, config.hangar, store, logger.child(server.name));
			provider.on('transition', event => {
				// Dirty first, so a listener that reads tools() sees the set after this transition.
				this.markToolsDirty();
				this.emit('transition', event);
			});
			provider.on('tools', () => this.markToolsDirty());
			provider.on('activity', () => this.emit('activity', server.name));
			this.providers.set(server.name, provider);
		}

		this.markToolsDirty();
	}

	/**
	 * Starts the upstreams that are not lazy, and those whose tools are not
	 * known yet, a few at a time: spawning hundreds of processes at once would
	 * stall the event loop (and every client's requests) for seconds.
	 * A call to one still waiting in this queue starts it at once.
	 */
	launch(concurrency = 4): Promise<void> {
		const queue = [...this.providers.values()].filter(provider => provider.startsAtLaunch);
		const worker = async () => {
			for (let provider = queue.shift(); provider !== undefined; provider = queue.shift()) {
				if (this.shuttingDown) return;
				await provider.launch();
			}
		};

		return Promise.all(Array.from({length: Math.min(concurrency, queue.length)}, worker)).then(() => {});
	}

	provider(name: string): Provider {
		const provider = this.providers.get(name);
		if (provider === undefined) {
			const known = [...this.providers.keys()];
			throw new HangarError({
				code: 'UpstreamUnavailable',
				upstream: name,
				operation: 'lookup',
				message: 'no upstream of that name is configured',
				hint: known.length > 0 ? `Configured upstreams: ${known.join(', ')}.` : 'The config has no upstreams.',
			});
		}

		return provider;
	}

	tools(): readonly ExposedTool[] {
		this.ensureFresh();
		return this.exposed;
	}

	/**
	 * Resolves an exposed name, waiting for the upstream it names to list its
	 * tools when they are not known yet (first run without cache, or a start
	 * in progress), so an early call is routed instead of refused.
	 */
	async resolveToolWhenKnown(name: string, signal: AbortSignal): Promise<ExposedTool | undefined> {
		this.ensureFresh();
		const known = this.byName.get(name);
		if (known !== undefined) return known;
		const split = name.indexOf('__');
		if (split === -1) return undefined;
		const provider = this.providers.get(name.slice(0, split));
		if (provider === undefined || (provider.state !== 'starting' && !(provider.state === 'cold' && provider.toolsSource === 'none'))) {
			return undefined;
		}

		await provider.learnTools(signal);
		this.ensureFresh();
		return this.byName.get(name);
	}

	/** For `<server>__<tool>` of an upstream whose tools are hidden (stopped, quarantined, disabled): who owns it. */
	hiddenOwner(name: string): {server: string; tool: string} | undefined {
		const split = name.indexOf('__');
		if (split === -1) return undefined;
		const provider = this.providers.get(name.slice(0, split));
		if (provider === undefined || !isHidden(provider)) return undefined;
		return {server: provider.name, tool: name.slice(split + 2)};
	}

	/**
	 * Tool search over the exposed tools (the same set tools/list serves, from
	 * live lists or the cache, so cold upstreams are found too): hits with a
	 * score in 0..1, best first. How queries are matched is in tool-search.ts;
	 * the index is built on the first search after the set changed.
	 */
	searchTools(query: string, limit: number): Array<ToolSearchHit<ExposedTool>> {
		this.ensureFresh();
		this.searchIndex ??= new ToolSearchIndex(this.exposed);
		return this.searchIndex.search(query, limit);
	}

	/**
	 * A person's (or a management tool's) command on one upstream; resolves
	 * with a sentence saying what happened, or rejects with a HangarError that
	 * says why not and what to do. `via` says who, for the transition reason
	 * ("a person in the TUI", "MCP client \"cursor\""). `approve` (lift a
	 * quarantine, pin tools) is for people only: the gateway never offers it.
	 */
	async command(name: string, action: Command, via: string): Promise<string> {
		const provider = this.provider(name);
		if (this.shuttingDown) {
			throw new HangarError({code: 'ShuttingDown', upstream: name, operation: action, message: 'hangar is shutting down', hint: 'Retry once hangar is running again.'});
		}

		switch (action) {
			case 'start': {
				if (provider.state === 'ready' || provider.state === 'degraded') return `"${name}" is already running (${provider.state}, pid ${provider.pid ?? 'remote'})`;
				await provider.start(`started by ${via}`);
				return `started "${name}" (${provider.state}${provider.pid === undefined ? '' : `, pid ${provider.pid}`}, ${provider.tools.length} tools)`;
			}

			case 'stop': {
				if (provider.state === 'quarantined' || provider.state === 'disabled') {
					throw new HangarError({code: 'UpstreamUnavailable', upstream: name, operation: 'stop', message: `it is ${provider.state}, not running`, hint: 'Nothing to stop.'});
				}

				if (provider.state === 'stopped') return `"${name}" is already stopped`;
				await provider.stop('stopped', `stopped by ${via}`);
				return `stopped "${name}": it does not start on demand until it is started again`;
			}

			case 'restart': {
				await provider.restart(`restarted by ${via}`);
				return `restarted "${name}" (${provider.state}${provider.pid === undefined ? '' : `, pid ${provider.pid}`})`;
			}

			case 'quarantine': {
				if (provider.state === 'quarantined') return `"${name}" is already quarantined`;
				if (provider.state === 'disabled') {
					throw new HangarError({code: 'UpstreamUnavailable', upstream: name, operation: 'quarantine', message: 'it is disabled in the config', hint: 'A disabled upstream never runs; nothing to quarantine.'});
				}

				await provider.quarantine(`quarantined by ${via}`);
				return `quarantined "${name}": stopped, tools hidden, calls refused until a person approves it`;
			}

			case 'approve': {
				const wasQuarantined = provider.state === 'quarantined';
				const plan = provider.approve(`approved by ${via}`);
				const pinned = `pinned ${describeApproval(plan)}`;
				// Started at launch had it not been quarantined (lazy is false, or its tools were never listed): start it now.
				const starting = provider.startsAtLaunch;
				if (starting) void provider.launch();
				const next = starting ? (provider.config.lazy ? '; starting it once to learn its tools' : '; starting it (lazy is false)') : '';
				return wasQuarantined ? `approved "${name}": quarantine lifted${starting ? '' : ' (now cold)'}, ${pinned}${next}` : `approved "${name}": ${pinned}${next}`;
			}
		}
	}

	/** Up to `limit` exposed tool names closest to `name`, for "did you mean" hints. */
	closestTools(name: string, limit = 3): string[] {
		this.ensureFresh();
		this.fuse ??= new Fuse(this.exposed, {keys: ['name'], threshold: 0.6, ignoreLocation: true});
		return this.fuse.search(name, {limit}).map(hit => hit.item.name);
	}

	async call(server: string, tool: string, args: Record<string, unknown> | undefined, context: CallContext = {}): Promise<CallToolResult> {
		if (this.shuttingDown) {
			throw new HangarError({
				code: 'ShuttingDown',
				upstream: server,
				operation: `tools/call "${tool}"`,
				message: 'hangar is shutting down',
				hint: 'Retry once hangar is running again.',
			});
		}

		return this.provider(server).callTool(tool, args, context);
	}

	/** Stops every upstream in order (stdin close, SIGTERM, SIGKILL), in parallel, and flushes state. */
	async shutdown(reason: string): Promise<void> {
		if (this.shuttingDown) return;
		this.shuttingDown = true;
		this.logger.info(`shutting down: ${reason}`);
		await Promise.all([...this.providers.values()].map(async provider => provider.shutdown(`hangar is shutting down (${reason})`)));
		await this.store.close();
	}

	/**
	 * The exposed set is derived on demand: events only mark it dirty, reads
	 * rebuild it, and a microtask rebuilds it and emits `toolsChanged` once
	 * for any burst of events (200 upstreams starting must not rebuild it 400
	 * times). Whether it changed is judged from each provider's visibility and
	 * tool-list revision, not by serializing every schema.
	 */
	private markToolsDirty(): void {
		this.dirty = true;
		if (this.emitScheduled) return;
		this.emitScheduled = true;
		queueMicrotask(() => {
			this.emitScheduled = false;
			this.ensureFresh();
			if (this.changedSinceEmit) {
				this.changedSinceEmit = false;
				this.emit('toolsChanged');
			}
		});
	}

	private ensureFresh(): void {
		if (!this.dirty) return;
		this.dirty = false;
		// The set depends only on which upstreams are visible and their tool-list revisions: when those
		// did not change (most transitions: starting, ready, degraded, ...), the set and its indexes stay.
		const visible = [...this.providers.values()].filter(provider => !isHidden(provider));
		const signature = visible.map(provider => `${provider.name}:${provider.toolsRevision}`).join('|');
		if (this.initialized && signature === this.signature) return;
		if (this.initialized) this.changedSinceEmit = true;
		this.signature = signature;
		this.initialized = true;
		const exposed: ExposedTool[] = [];
		for (const provider of visible) {
			const seen = new Set<string>();
			for (const definition of provider.tools) {
				// An upstream that lists the same tool twice would make tools/list ambiguous.
				if (seen.has(definition.name)) continue;
				seen.add(definition.name);
				exposed.push({name: exposedToolName(provider.name, definition.name), server: provider.name, tool: definition.name, definition});
			}
		}

		this.exposed = exposed;
		this.byName = new Map(exposed.map(tool => [tool.name, tool]));
		this.fuse = undefined;
		this.searchIndex = undefined;
	}

}
