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
import {Router, type ExposedTool} from './router.js';
import type {StateStore} from './state-store.js';
import type {ToolSearchHit} from './tool-search.js';
import type {CallToolResult} from '../upstream/connection.js';

export type {ExposedTool};

/** A person's actions on one upstream (see `Supervisor.command`). */
export const commands = ['start', 'stop', 'restart', 'quarantine', 'approve'] as const;
export type Command = (typeof commands)[number];

export function isCommand(value: unknown): value is Command {
	return commands.some(command => command === value);
}

export class Supervisor extends EventEmitter<{
	transition: [TransitionEvent];
	toolsChanged: [];
	activity: [string];
}> {
	readonly providers = new Map<string, Provider>();
	/** Where each request goes: exposed names, hangar_call, hidden owners, "did you mean". */
	readonly router = new Router(this.providers);
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
		for (const server of config.servers) {
			const provider = new Provider(server, config.hangar, store, logger.child(server.name), relay);
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
		if (provider === undefined) throw unknownUpstream(name, [...this.providers.keys()]);
		return provider;
	}

	/** The exposed tool set (see Router). */
	tools(): readonly ExposedTool[] {
		return this.router.tools();
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
	 * Events only mark the exposed set dirty (the router rebuilds it on the
	 * next read); a microtask rebuilds it and emits `toolsChanged` once for
	 * any burst of events (200 upstreams starting must not rebuild it 400
	 * times).
	 */
	private markToolsDirty(): void {
		this.router.invalidate();
		if (this.emitScheduled) return;
		this.emitScheduled = true;
		queueMicrotask(() => {
			this.emitScheduled = false;
			if (this.router.takeChange()) this.emit('toolsChanged');
		});
	}
}
