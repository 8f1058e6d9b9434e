/**
 * The supervisor: every configured upstream as a `Provider`, the one state
 * model that every surface reads (gateway `tools/list`, `hangar_list`, the
 * call path, the TUI). It publishes typed events (transitions, tool set
 * changes, activity), takes people's actions, and answers status from memory
 * only, never by asking an upstream. Where a request goes is the `Router`'s
 * business: it derives the exposed tool set from the providers.
 */
import {EventEmitter} from 'node:events';
import {ClientRegistry} from './clients.js';
import {ClientRelay} from './client-relay.js';
import type {HangarConfig} from '../config/config.js';
import {describeApproval} from './pins.js';
import type {Logger} from '../base/logger.js';
import type {CallContext} from './call-path.js';
import {Provider} from './provider.js';
import type {TransitionEvent} from './provider-state.js';
import {pointlessCommand, shuttingDown, unknownUpstream} from './refusals.js';
import {Router, type ExposedKind, type ExposedTool, type NameClash} from './router.js';
import {Subscriptions} from './subscriptions.js';
import type {ServerCapabilities} from './catalog.js';
import type {StateStore} from './state-store.js';
import type {ToolSearchHit} from './tool-search.js';
import type {CallToolResult} from '../upstream/connection.js';

export type {ExposedTool, NameClash};

/** What hangar can serve to a client besides tools, from every upstream's capabilities (see `Supervisor.capabilities`). */
export type ServedCapabilities = {
	resources?: {subscribe?: boolean; listChanged: boolean};
	prompts?: {listChanged: boolean};
	completions?: Record<string, never>;
};

const changeEvents: Record<ExposedKind, 'toolsChanged' | 'resourcesChanged' | 'promptsChanged'> = {
	tools: 'toolsChanged',
	resources: 'resourcesChanged',
	prompts: 'promptsChanged',
};

/** A person's actions on one upstream (see `Supervisor.command`). */
export const commands = ['start', 'stop', 'restart', 'quarantine', 'approve'] as const;
export type Command = (typeof commands)[number];

export function isCommand(value: unknown): value is Command {
	return commands.some(command => command === value);
}

export class Supervisor extends EventEmitter<{
	transition: [TransitionEvent];
	toolsChanged: [];
	resourcesChanged: [];
	promptsChanged: [];
	activity: [string];
}> {
	readonly providers = new Map<string, Provider>();
	/** Where each request goes: exposed names, hangar_call, hidden owners, "did you mean". */
	readonly router = new Router(this.providers);
	/** Resource subscriptions of every session, counted per upstream resource. */
	readonly subscriptions: Subscriptions;
	/** The clashes last logged, so each is logged when it appears, not on every change. */
	private loggedClashes = '';
	private emitScheduled = false;
	private shuttingDown = false;
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
		// Each running upstream's connection follows the clients' log level and roots.
		this.clients.setMaxListeners(0);
		const relay = new ClientRelay(this.clients, logger.child('relay'));
		this.subscriptions = new Subscriptions(this.router, logger);
		for (const server of config.servers) {
			const provider = new Provider(server, config.hangar, store, logger.child(server.name), relay);
			provider.on('transition', event => {
				// Dirty first, so a listener that reads tools() sees the set after this transition.
				this.markToolsDirty();
				if (event.to === 'ready' && event.from === 'starting') this.subscriptions.resubscribe(provider);
				this.emit('transition', event);
			});
			provider.on('tools', () => this.markToolsDirty());
			provider.on('catalog', () => this.markToolsDirty());
			provider.on('resourceUpdated', uri => this.subscriptions.updated(server.name, uri));
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
		if (provider === undefined) throw unknownUpstream(name, [...this.providers.keys()]);
		return provider;
	}

	/** The exposed tool set (see Router). */
	tools(): readonly ExposedTool[] {
		return this.router.tools();
	}

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
	capabilities(): ServedCapabilities {
		const served: ServedCapabilities = {};
		for (const provider of this.providers.values()) {
			if (provider.config.disabled) continue;
			const caps: ServerCapabilities | undefined = provider.capabilities;
			if (caps === undefined || caps.resources !== undefined) {
				served.resources ??= {listChanged: true};
				if (caps?.resources?.subscribe === true) served.resources.subscribe = true;
			}

			if (caps === undefined || caps.prompts !== undefined) served.prompts = {listChanged: true};
			if (caps === undefined || caps.completions !== undefined) served.completions = {};
		}

		return served;
	}

	/** Every name two upstreams expose, with the one that keeps it (see Router.clashes). */
	clashes(): readonly NameClash[] {
		return this.router.clashes();
	}

	/** Tool search over the exposed tools (see Router.search). */
	searchTools(query: string, limit: number): Array<ToolSearchHit<ExposedTool>> {
		return this.router.search(query, limit);
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
		if (this.shuttingDown) throw shuttingDown(name, action);

		switch (action) {
			case 'start': {
				if (provider.state === 'ready' || provider.state === 'degraded') return `"${name}" is already running (${provider.state}, pid ${provider.pid ?? 'remote'})`;
				await provider.start(`started by ${via}`);
				return `started "${name}" (${provider.state}${provider.pid === undefined ? '' : `, pid ${provider.pid}`}, ${provider.tools.length} tools)`;
			}

			case 'stop': {
				if (provider.state === 'quarantined' || provider.state === 'disabled') throw pointlessCommand(name, 'stop', provider.state);

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
				if (provider.state === 'disabled') throw pointlessCommand(name, 'quarantine', provider.state);

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

	/** A request other than a tool call to one upstream (see Provider.request). */
	async request(provider: Provider, method: string, params: Record<string, unknown>, operation: string, context: Pick<CallContext, 'signal' | 'budget'> = {}): Promise<Record<string, unknown>> {
		if (this.shuttingDown) throw shuttingDown(provider.name, operation);
		return provider.request(method, params, operation, context);
	}

	async call(server: string, tool: string, args: Record<string, unknown> | undefined, context: CallContext = {}): Promise<CallToolResult> {
		if (this.shuttingDown) throw shuttingDown(server, `tools/call "${tool}"`);

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
	 * Events only mark the exposed sets dirty (the router rebuilds them on the
	 * next read); a microtask rebuilds them and emits `toolsChanged`,
	 * `resourcesChanged` or `promptsChanged` once for any burst of events (200
	 * upstreams starting must not rebuild them 400 times). A name clash is
	 * logged when it appears (the first time: at load, from cached lists).
	 */
	private markToolsDirty(): void {
		this.router.invalidate();
		if (this.emitScheduled) return;
		this.emitScheduled = true;
		queueMicrotask(() => {
			this.emitScheduled = false;
			for (const kind of this.router.takeChanges()) this.emit(changeEvents[kind]);
			this.logClashes();
		});
	}

	private logClashes(): void {
		const clashes = this.router.clashes();
		const text = clashes.map(clash => describeClash(clash)).join('\n');
		if (text === this.loggedClashes) return;
		this.loggedClashes = text;
		for (const clash of clashes) this.logger.warn(describeClash(clash), {clash: clash.name});
	}
}

/** A clash as a sentence for the log and `--check-config`: who keeps the name, and how the others stay reachable. */
export function describeClash(clash: NameClash): string {
	const others = clash.shadowed.map(server => `"${server}"`).join(', ');
	const keeper = clash.owner === 'hangar' ? 'hangar keeps it for its own tools (names starting with "hangar_")' : `"${clash.owner}" keeps it (first in config order)`;
	const reach = clash.kind === 'tool' ? `; call the other with hangar_call {"server", "tool"}` : '';
	return `name clash: ${clash.kind} "${clash.name}" is exposed by ${clash.owner === 'hangar' ? '' : `"${clash.owner}" and `}${others}: ${keeper}, the one of ${others} is not listed${reach}. Give one of them a "namespace" to expose both.`;
}
