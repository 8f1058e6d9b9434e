/**
 * How many instances of an upstream run, and why: one for every client
 * ("shared"), one per client session ("per-client"), or "auto" (the
 * default): shared while the upstream has shown nothing client-scoped, and
 * per client from the moment it asks a client for roots, sampling or
 * elicitation. That verdict is learned once and kept in the state store,
 * like a tool list, so the next run starts per client at once.
 *
 * A request of an upstream's belongs to the client whose call caused it;
 * on a shared instance hangar often cannot tell which that is, and a roots
 * answer would scope the instance for every client at once. Per-client
 * instances remove the doubt: each instance has one client.
 */
import type {Logger} from '../../base/logger.js';
import type {ServerConfig} from '../../config/read-config.js';
import type {PersistedUpstream, StateStore} from '../state-store.js';
import type {Upstream} from '../upstream/upstream.js';
import {launchKey, serverKey} from '../upstream/upstream-era.js';
import {SharedRelay, type SharedHost} from './client-relay.js';
import type {ClientRecord, ClientRegistry} from './clients.js';

export type InstancesSetting = ServerConfig['instances'];

/** What an "auto" upstream showed that made it run per client. */
export type ClientScoped = {at: number; method: string};

export type InstanceModeView = {
	/** The config's "instances" (default "auto"). */
	setting: InstancesSetting;
	/** What runs now: one instance for every client, or one per client session. */
	runs: 'shared' | 'per-client';
	/** Why an "auto" upstream runs per client: the request it sent, and when (ISO); null otherwise. */
	learned: {at: string; method: string} | null;
	/** While it runs per client: at most this many instances of it at once (hangar.maxInstancesPerServer; clients/instance-limit.ts). */
	limit?: number;
};

/** Whether each client session gets its own instance of the upstream. */
export function runsPerClient(setting: InstancesSetting, persisted: Pick<PersistedUpstream, 'clientScoped'> | undefined): boolean {
	return setting === 'per-client' || (setting === 'auto' && persisted?.clientScoped !== undefined);
}

export function instanceModeView(setting: InstancesSetting, persisted: Pick<PersistedUpstream, 'clientScoped'> | undefined): InstanceModeView {
	const learned = setting === 'auto' ? persisted?.clientScoped : undefined;
	return {
		setting,
		runs: runsPerClient(setting, persisted) ? 'per-client' : 'shared',
		learned: learned === undefined ? null : {at: new Date(learned.at).toISOString(), method: learned.method},
	};
}

/** One line for people: "auto: per client (it sent roots/list)". */
export function describeInstanceMode(view: InstanceModeView): string {
	const runs = view.runs === 'per-client' ? 'one instance per client session' : 'one instance shared by every client';
	if (view.setting !== 'auto') return `${view.setting}: ${runs}`;
	return view.learned === null ? `auto: ${runs} (it has asked no client for roots, sampling or elicitation)` : `auto: ${runs} (it sent ${view.learned.method} at ${view.learned.at})`;
}

/**
 * The supervisor's side of instance modes: which upstreams run per client
 * now, the relay each shared instance gets, and what an "auto" upstream
 * learns. When one sends its first client-scoped request, the verdict is
 * written to the state store at once, new calls go to per-client instances,
 * and the shared instance stops as soon as the calls it is serving have
 * ended (a start in progress finishes first, so its tool list is learned).
 */
export class InstanceModes {
	constructor(
		private readonly clients: ClientRegistry,
		private readonly store: StateStore,
		private readonly logger: Logger,
		/** Told when an "auto" upstream learned that it runs per client (surfaces refresh). */
		private readonly onLearned: (upstream: Upstream) => void,
	) {}

	/** The upstreams `drain` waits on. */
	private readonly draining = new WeakSet<Upstream>();

	/** The session that created a task hangar handed out (its id) on an instance (its name); the supervisor's task book answers. */
	taskOwner: (instance: string, taskId: string) => ClientRecord | undefined = () => undefined;

	runsPerClient(upstream: Upstream): boolean {
		const setting = upstream.config.instances;
		// Read on every routed call: the state file is looked at only for an "auto" one.
		return setting === 'auto' ? runsPerClient(setting, this.persisted(upstream)) : setting === 'per-client';
	}

	view(upstream: Upstream): InstanceModeView {
		return instanceModeView(upstream.config.instances, this.persisted(upstream));
	}

	/**
	 * What an "auto" upstream learned holds for the launch and the server
	 * version it was learned of: a config that launches something else, or a
	 * server that reported another name or version at its last start, learns
	 * it again (shared until it asks a client). Checked when the supervisor
	 * adds the upstream (at start and at a reload that changed it), never
	 * while its instances run.
	 */
	review(server: ServerConfig): void {
		if (!this.store.has(server.name)) return;
		const record = this.store.upstream(server.name);
		const verdict = record.clientScoped;
		if (verdict === undefined) return;
		const launch = launchKey(server.launch);
		const now = serverKey(record.identity);
		const why =
			verdict.launch !== undefined && verdict.launch !== launch
				? 'its launch (command, arguments, cwd or URL) changed'
				: verdict.server !== undefined && verdict.server !== null && now !== null && verdict.server !== now
					? `it is ${now} now, not ${verdict.server}`
					: undefined;
		this.store.update(server.name, stored => {
			// Learned before these fields existed: adopt the current launch and version.
			stored.clientScoped = why === undefined ? {...verdict, launch, server: verdict.server ?? now} : undefined;
		});
		if (why !== undefined) this.logger.info(`upstream "${server.name}": forgot that it runs one instance per client (learned ${new Date(verdict.at).toISOString()} from ${verdict.method}): ${why}; "instances": "auto" learns it again`);
	}

	/** The client side of a shared upstream (or a per-client one's template); `upstream` is read when a request arrives. */
	sharedRelay(upstream: () => Upstream): SharedRelay {
		const modes = this;
		const host: SharedHost = {
			get setting() {
				return upstream().config.instances;
			},
			get callers() {
				return upstream().callers;
			},
			runsPerClient: () => modes.runsPerClient(upstream()),
			clientScoped: method => modes.learn(upstream(), method),
			taskOwner: taskId => modes.taskOwner(upstream().name, taskId),
		};
		return new SharedRelay(this.clients, host, this.logger);
	}

	private persisted(upstream: Upstream): PersistedUpstream | undefined {
		return this.store.has(upstream.config.name) ? this.store.upstream(upstream.config.name) : undefined;
	}

	private learn(upstream: Upstream, method: string): void {
		if (upstream.config.instances !== 'auto' || this.runsPerClient(upstream)) return;
		const name = upstream.config.name;
		this.store.updateNow(name, record => {
			record.clientScoped = {at: Date.now(), method, launch: launchKey(upstream.config.launch), server: serverKey(record.identity)};
		});
		const note = `it sent ${method}, a request that belongs to one client: from now on each client session gets its own instance ("instances": "auto")`;
		this.logger.info(`upstream "${name}": ${note}`);
		upstream.log.push('hangar', note);
		this.drain(upstream);
		this.onLearned(upstream);
	}

	/**
	 * Stops the shared instance (or a per-client server's template) once it
	 * serves no call and runs no task whose result is still to be fetched
	 * (stopping would lose it); a start in progress is left to finish: the
	 * supervisor drains it when ready.
	 */
	drain(upstream: Upstream, reason = 'it runs one instance per client session now ("instances": "auto" learned it); this shared one served its last call'): void {
		// Once per upstream at a time: each ready transition (a restart, a recovery) would add another listener.
		if (this.draining.has(upstream)) return;
		this.draining.add(upstream);
		const check = (): void => {
			if (upstream.callsInFlight > 0 || upstream.tasksLive > 0) return;
			upstream.off('activity', check);
			this.draining.delete(upstream);
			if (upstream.state === 'ready' || upstream.state === 'degraded') void upstream.stop('cold', reason).catch(() => {});
		};

		upstream.on('activity', check);
		// After the current turn: the request that taught it is answered first.
		setImmediate(check);
	}
}

export {launchKey} from '../upstream/upstream-era.js';
