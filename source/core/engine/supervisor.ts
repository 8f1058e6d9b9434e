/**
 * The supervisor: every configured upstream as a `Upstream`, the one state
 * model that every surface reads (gateway `tools/list`, `hangar_list`, the
 * call path, the TUI). It publishes typed events (transitions, tool set
 * changes, activity), takes people's actions, and answers status from memory
 * only, never by asking an upstream. Where a request goes is the `Router`'s
 * business: it derives the exposed tool set from the upstreams.
 *
 * A server with `"instances": "per-client"` is one upstream in `upstreams`
 * (its template: the tool list, the catalog, what people act on) and one
 * more upstream per client session that sends it a request (`<server>#<n>`,
 * n the session's number), created then and shut down when the session
 * closes. Each instance has its own breaker, restart budget and idle stop,
 * and its requests to a client go to its own session only.
 */
import {EventEmitter} from 'node:events';
import {CallLog} from './call-log.js';
import {ClientRegistry, type ClientRecord} from './clients/clients.js';
import {SessionRelay} from './clients/client-relay.js';
import {ClientTools} from './clients/client-tools.js';
import {EraTwins, servesModern} from './clients/era-twins.js';
import {ClientCatalog} from './clients/client-catalog.js';
import {waitForDiscovery} from './discovery-wait.js';
import {InstanceModes} from './clients/instance-mode.js';
import {InstanceTotals} from './clients/instance-totals.js';
import {instanceLimitRefusal, type OperationOf} from './clients/instance-limit.js';
import type {HangarConfig, ServerConfig, ToolDefinition} from '../config/read-config.js';
import {ContextCost, type ContextCostView} from './upstream/context-cost.js';
import {ConfigReload} from './config/config-reload.js';
import {ConfigFile, type ReloadRecord} from './config/running-config.js';
import {isPersonAction, perClientAct, personActions, sharedAct, type PersonAction} from './upstream-actions.js';
import {describeClash} from './routing/exposed-names.js';
import type {Logger} from '../base/logger.js';
import {errorMessage} from '../base/errors.js';
import {launchSecrets, registerSecrets} from '../base/secret-mask.js';
import type {RequestContext} from './request-context.js';
import {RoutedCalls, type InProcessCall} from './routed-calls.js';
import {Upstream} from './upstream/upstream.js';
import type {TransitionEvent} from './upstream/upstream-state.js';
import {cannotSave, notSaved, shuttingDown, unknownUpstream} from './refusals.js';
import {Router, type ExposedKind, type ExposedTool, type NameClash, type Route} from './routing/router.js';
import {Subscriptions} from './routing/subscriptions.js';
import {TaskBook, type TaskEntry} from './routing/task-book.js';
import {servedCapabilities, type ServedCapabilities} from './served-capabilities.js';
import type {StateStore} from './state-store.js';
import type {ToolSearchHit} from './routing/tool-search.js';
import type {CallToolResult, ToolAnswer} from '../link/connection.js';
import type {RequestTracing} from './observe/trace-scope.js';

export type {ExposedTool, InProcessCall, NameClash, ServedCapabilities};

/** The `_meta` of an upstream's list_changed, carried to the list_changed clients get. */
export type ListMeta = Record<string, unknown>;

const changeEvents: Record<ExposedKind, 'toolsChanged' | 'resourcesChanged' | 'promptsChanged'> = {
	tools: 'toolsChanged',
	resources: 'resourcesChanged',
	prompts: 'promptsChanged',
};

export {describeClash, isPersonAction, personActions, type PersonAction};

export type SupervisorOptions = {
	/** How the config file was read (`--state-dir` overrides the file's stateDir): reloads read it the same way. */
	loadOptions?: {stateDir?: string | undefined};
	/** Hangar's own tools as clients list them (the gateway's hangar_* tools), for the context cost (default none). */
	hangarTools?: readonly ToolDefinition[];
};

export class Supervisor extends EventEmitter<{
	transition: [TransitionEvent];
	/** An exposed list changed, or an upstream said so with a `_meta` (carried here, for the list_changed clients get). */
	toolsChanged: [ListMeta?];
	resourcesChanged: [ListMeta?];
	promptsChanged: [ListMeta?];
	activity: [string];
	/** What one client session sees of a per-client server's tools changed (its own instance listed them): its session id, and `_meta` as above. */
	clientToolsChanged: [number, ListMeta?];
	/** A reload was applied, found nothing to do, or was refused. */
	reload: [ReloadRecord];
	/** A person's (or a management tool's) command on one upstream, as it settled (the audit file's). */
	action: [ActionRecord];
	/** Shutdown is over: every upstream stopped, the state saved; when and why it shut down, and how many configured upstreams it stopped (the audit's shutdown line). */
	closed: [{at: number; reason: string; upstreams: number}];
	/** A person asked over the local socket to stop this hangar (mcp-hangar shutdown): the process exits (runtime.ts). */
	exitAsked: [string];
}> {
	readonly upstreams = new Map<string, Upstream>();
	/** Where each request goes: exposed names, hangar_call, hidden owners, "did you mean". */
	readonly router = new Router(this.upstreams);
	/** Resource subscriptions of every session, counted per upstream resource. */
	readonly subscriptions: Subscriptions;
	/** The clashes last logged, so each is logged when it appears, not on every change. */
	private loggedClashes = '';
	private emitScheduled = false;
	/** The `_meta` upstreams' list_changed carried since the last emit, per list (see markToolsDirty). */
	private readonly listMeta = new Map<ExposedKind, ListMeta>();
	private shuttingDown = false;
	/** When this supervisor was created. */
	readonly startedAt = Date.now();
	/** Every tool call as it finished, across upstreams (bounded): the TUI's calls view and `logs --calls`. */
	readonly calls = new CallLog();
	/** The tasks clients created through hangar: owner, upstream, ids (see routing/task-book.ts). */
	readonly tasks: TaskBook;
	/** The MCP clients connected to it right now (every gateway session adds itself). */
	readonly clients = new ClientRegistry();
	/** The file the config came from: what runs, drift, the reloads so far. */
	readonly configFile: ConfigFile;
	private current: HangarConfig;
	/** Removes the supervisor's listeners from a upstream it lets go of. */
	private readonly detach = new Map<Upstream, () => void>();
	/** Upstreams a reload removed or replaced, while they stop. */
	private readonly retiring = new Set<Promise<void>>();
	/** Reloads of the config file (see config/config-reload.ts). */
	private readonly reloads: ConfigReload;
	/** How many instances of each upstream run ("instances"), and what an "auto" one learned. */
	readonly instanceModes: InstanceModes;
	/** The instances of each per-client template, by client session id. */
	private readonly instanceSets = new Map<Upstream, Map<number, Instance>>();
	/** Each per-client server's calls with its instances', those let go included (`serverEntry` reads them). */
	readonly instanceTotals = new InstanceTotals();
	/** The tools each client session sees of the per-client servers: its own instance's. */
	readonly clientTools = new ClientTools({
		tools: () => this.router.tools(),
		ownListTemplates: client => [...this.upstreams.values()].filter(upstream => this.instanceModes.runsPerClient(upstream) || servesModern(upstream, client)),
		servesModern,
		instanceOf: (template, client) => this.instanceSets.get(template)?.get(client.id)?.upstream ?? (servesModern(template, client) ? this.eraTwins.twinOf(template) : undefined),
		instanceFor: (template, client, operation) => this.instanceFor(template, client, operation),
	});
	/** The era twins of dual-era upstreams, for 2026-07-28 clients (see clients/era-twins.ts). */
	readonly eraTwins: EraTwins;
	/** The prompts and resources a 2026-07-28 client sees: a dual-era upstream's from its 2026-07-28 mode (see clients/client-catalog.ts). */
	readonly clientCatalog = new ClientCatalog({
		router: this.router,
		modernTemplates: client => [...this.upstreams.values()].filter(upstream => servesModern(upstream, client)),
		instanceOf: (template, client) => this.instanceSets.get(template)?.get(client.id)?.upstream ?? this.eraTwins.twinOf(template),
		prepare: async (client, signal) => this.clientTools.prepare(client, signal),
	});
	/** OpenTelemetry spans of routed requests, when the OTEL_* variables ask for them (see observe/trace-scope.ts). */
	tracing: RequestTracing | undefined;
	/** The routed calls and requests (see routed-calls.ts). */
	private readonly routed: RoutedCalls;

	constructor(
		config: HangarConfig,
		readonly store: StateStore,
		private readonly logger: Logger,
		private readonly options: SupervisorOptions = {},
	) {
		super();
		this.setMaxListeners(100);
		// Each running upstream's connection follows the clients' log level and roots.
		this.clients.setMaxListeners(0);
		this.instanceModes = new InstanceModes(this.clients, store, logger.child('relay'), upstream => {
			this.emit('activity', upstream.name);
			// Each session now sees the list its own instance gives a client like it (client-tools.ts): tell them to list again.
			this.emit('toolsChanged');
			this.subscriptions.moveToInstances(upstream);
		});
		this.tasks = new TaskBook(this.calls, logger.child('tasks'));
		this.instanceModes.taskOwner = (instance, taskId) => this.tasks.ownerOf(instance, taskId);
		this.eraTwins = new EraTwins({settings: () => this.current.hangar, store, logger, clients: this.clients, follow: (twin, template) => this.followInstance(twin, template), listsChanged: (kind, meta) => this.twinListsChanged(kind, meta), keepCounts: async (template, twin, stopped) => this.instanceTotals.retire(template, twin, stopped)});
		this.routed = new RoutedCalls({
			shuttingDown: () => this.shuttingDown,
			instanceFor: (template, client, operation) => this.instanceFor(template, client, operation),
			tracing: () => this.tracing,
			calls: this.calls,
			tasks: this.tasks,
			upstream: name => this.upstream(name),
			taskResultTimeoutMs: () => this.current.hangar.taskResultTimeoutMs,
		});
		this.subscriptions = new Subscriptions(this.router, logger, (upstream, subscriber) => this.instanceFor(upstream, subscriber.client, 'resources/subscribe'));
		this.current = config;
		this.configFile = new ConfigFile(config.path);
		this.reloads = new ConfigReload({
			configFile: this.configFile,
			logger,
			loadOptions: options.loadOptions,
			current: () => this.current,
			replace: applied => {
				this.current = applied;
			},
			upstreams: this.upstreams,
			addUpstream: (server, applied) => this.addUpstream(server, applied),
			retire: (upstream, reason) => this.retire(upstream, reason),
			markToolsDirty: () => this.markToolsDirty(),
			shuttingDown: () => this.shuttingDown,
			reloaded: record => this.emit('reload', record),
		});
		for (const server of config.servers) this.addUpstream(server, config);
		// A session's instances must not outlive it.
		this.clients.on('removed', record => {
			this.tasks.dropClient(record);
			for (const [template, set] of this.instanceSets) {
				const instance = set.get(record.id);
				if (instance === undefined) continue;
				set.delete(record.id);
				void this.instanceTotals.retire(template, instance.upstream, this.retire(instance.upstream, `its client session (${record.label}) closed`)).then(() => this.emit('activity', template.name));
			}
		});
		this.markToolsDirty();
		// Another hangar process wrote the state dir until now: apply the quarantines and approvals it saved meanwhile.
		store.onTakeover(changed => {
			for (const name of changed) void this.applySavedAdmin(name);
		});
	}

	/** Brings an upstream in line with the quarantine its saved record holds (or no longer holds). */
	private async applySavedAdmin(name: string): Promise<void> {
		const upstream = this.upstreams.get(name);
		if (upstream === undefined || this.shuttingDown) return;
		try {
			if (await upstream.applySavedAdmin()) await this.retireInstances(upstream, 'quarantined by another hangar process');
		} catch (error) {
			this.logger.warn(`cannot apply the saved quarantine of "${name}": ${errorMessage(error)}`);
		}
	}

	/** The config that runs now (a reload replaces it). */
	get config(): HangarConfig {
		return this.current;
	}

	private addUpstream(server: ServerConfig, config: HangarConfig): Upstream {
		// Before the upstream exists (at start, or when a reload adds or changes it): its log buffer masks these from its first line on.
		registerSecrets(launchSecrets(server.launch));
		this.instanceModes.review(server);
		const upstream: Upstream = new Upstream(server, config.hangar, this.store, this.logger.child(server.name), this.instanceModes.sharedRelay(() => upstream));
		const onTransition = (event: TransitionEvent): void => {
			this.tasksFollow(event);
			// Dirty first, so a listener that reads tools() sees the set after this transition.
			this.markToolsDirty();
			if (event.to === 'ready' && event.from === 'starting') this.subscriptions.resubscribe(upstream);
			this.emit('transition', event);
			// A per-client server's template runs to learn its tools (at launch, or a person's start), and serves only calls no client session made
			// (a one-shot `mcp-hangar call`, the TUI's demo traffic): it stops once those have ended.
			if (event.to === 'ready' && this.instanceModes.runsPerClient(upstream)) {
				this.instanceModes.drain(upstream, `its tools are known and it serves no call; each client session runs its own instance ("instances": "${upstream.config.instances}")`);
			}
		};

		const onTools = (): void => this.markToolsDirty();
		const onListMeta = (kind: ExposedKind, meta: ListMeta): void => {
			// Several upstreams' `_meta` in one batch merge key by key; the last one to settle wins a key both set (docs/protocol.md).
			this.listMeta.set(kind, {...this.listMeta.get(kind), ...meta});
			this.markToolsDirty();
		};

		const onResourceUpdated = (uri: string, meta: Record<string, unknown> | undefined): void => this.subscriptions.updated(server.name, uri, meta);
		const onActivity = (): void => void this.emit('activity', server.name);

		const unfollowTasks = this.followTasks(upstream);
		upstream.on('transition', onTransition);
		upstream.on('tools', onTools);
		upstream.on('catalog', onTools);
		upstream.on('listMeta', onListMeta);
		upstream.on('resourceUpdated', onResourceUpdated);
		upstream.on('activity', onActivity);
		this.detach.set(upstream, () => {
			upstream.off('transition', onTransition);
			upstream.off('tools', onTools);
			upstream.off('catalog', onTools);
			upstream.off('listMeta', onListMeta);
			upstream.off('resourceUpdated', onResourceUpdated);
			upstream.off('activity', onActivity);
			unfollowTasks();
		});
		this.upstreams.set(server.name, upstream);
		return upstream;
	}

	/**
	 * The upstream that serves `client`'s requests for `template`: the
	 * template itself for a shared server (a dual-era one's era twin for a
	 * 2026-07-28 client), or the session's own instance of a per-client
	 * server, created on its first request. While a person or the config has
	 * switched the server off, the template answers (with its refusal).
	 */
	instanceFor(template: Upstream, client: ClientRecord | undefined, operation: OperationOf): Upstream {
		if (client === undefined || template.admin !== 'enabled' || template.state === 'invalid' || this.shuttingDown) return template;
		// A dual-era upstream serves a 2026-07-28 client from its 2026-07-28 mode: the shared era twin, or its own instance opened so.
		const modern = servesModern(template, client);
		if (!this.instanceModes.runsPerClient(template)) return modern ? this.eraTwins.twinFor(template) : template;
		// A session that has closed gets no instance: nothing would ever stop it.
		if (!this.clients.has(client)) return template;
		const set = this.instanceSets.get(template) ?? new Map<number, Instance>();
		const existing = set.get(client.id);
		if (existing !== undefined) return existing.upstream;
		// Bounded (clients/instance-limit.ts): past the limit this session's request is refused; no other session's instance goes.
		const full = instanceLimitRefusal({server: template.name, session: client.label, operation, ofServer: set.size, total: [...this.instanceSets.values()].reduce((sum, each) => sum + each.size, 0), settings: this.current.hangar});
		if (full !== undefined) throw full;
		this.instanceSets.set(template, set);
		const name = `${template.name}#${client.id}`;
		const logger = this.logger.child(name);
		const upstream = new Upstream(template.config, this.current.hangar, this.store, logger, new SessionRelay(this.clients, client, name, logger), name, {}, modern ? 'modern' : undefined);
		// Its list is its client's (it is told that client's capabilities): that session's tools/list shows it.
		// One list_changed per burst, with the `_meta` its upstream's carried (the list and its meta settle in the same turn).
		let toolsMeta: ListMeta | undefined;
		let toolsDue = false;
		const toolsChanged = (): void => {
			if (toolsDue) return;
			toolsDue = true;
			queueMicrotask(() => {
				const meta = toolsMeta;
				toolsDue = false;
				toolsMeta = undefined;
				this.emit('clientToolsChanged', client.id, meta);
			});
		};

		const onTools = (): void => {
			if (this.clientTools.listed(template, upstream, client)) toolsChanged();
		};

		const onListMeta = (kind: ExposedKind, meta: ListMeta): void => {
			if (kind !== 'tools') return;
			toolsMeta = {...toolsMeta, ...meta};
			toolsChanged();
		};

		const unfollow = this.followInstance(upstream, template);
		upstream.on('tools', onTools);
		upstream.on('listMeta', onListMeta);
		this.detach.set(upstream, () => {
			upstream.off('tools', onTools);
			upstream.off('listMeta', onListMeta);
			unfollow();
		});
		upstream.log.push('hangar', `instance of "${template.name}" for the client session ${client.label}${client.name === null ? '' : ` ("${client.name}")`}`);
		set.set(client.id, {upstream, client});
		this.emit('activity', template.name);
		return upstream;
	}

	/** Ties an instance (per-client, or an era twin) to the supervisor's events: its transitions, activity (as its server's), resource updates and tasks; returns the untie. */
	private followInstance(upstream: Upstream, template: Upstream): () => void {
		const onTransition = (event: TransitionEvent): void => {
			this.tasksFollow(event);
			if (event.to === 'ready' && event.from === 'starting') this.subscriptions.resubscribe(upstream);
			this.emit('transition', event);
		};

		const onActivity = (): void => void this.emit('activity', template.name);
		const onResourceUpdated = (uri: string, meta: Record<string, unknown> | undefined): void => this.subscriptions.updated(upstream.name, uri, meta);
		const unfollowTasks = this.followTasks(upstream);
		upstream.on('transition', onTransition);
		upstream.on('activity', onActivity);
		upstream.on('resourceUpdated', onResourceUpdated);
		return () => {
			upstream.off('transition', onTransition);
			upstream.off('activity', onActivity);
			upstream.off('resourceUpdated', onResourceUpdated);
			unfollowTasks();
		};
	}

	/** An era twin's list changed: its tools reach each 2026-07-28 session's own list; prompts and resources are one list for every client. */
	private twinListsChanged(kind: ExposedKind, meta?: ListMeta): void {
		if (kind !== 'tools') return void this.emit(changeEvents[kind], meta);
		for (const client of this.clients.sessions()) if (client.modern) this.emit('clientToolsChanged', client.id, meta);
	}

	/** Ties an upstream (or instance) to the task book: its status notifications and task progress, and the ids hangar handed out for its tasks; returns the untie. */
	private followTasks(upstream: Upstream): () => void {
		const onTaskStatus = (params: Record<string, unknown>): void => this.tasks.statusFromUpstream(upstream.name, params);
		const onTaskProgress = (upstreamTaskId: string, progress: Record<string, unknown>): void => this.tasks.progressFromUpstream(upstream.name, upstreamTaskId, progress);
		upstream.on('taskStatus', onTaskStatus);
		upstream.on('taskProgress', onTaskProgress);
		upstream.exposedTaskId = upstreamTaskId => this.tasks.exposedIdOf(upstream.name, upstreamTaskId);
		return () => {
			upstream.off('taskStatus', onTaskStatus);
			upstream.off('taskProgress', onTaskProgress);
		};
	}

	/** An upstream that crashes or stops loses its tasks: the book reports them failed, saying why. */
	private tasksFollow(event: TransitionEvent): void {
		if (event.event === 'crashed') this.tasks.upstreamGone(event.upstream, `upstream "${event.upstream}" crashed (${event.reason})`);
		else if (event.event === 'stop') this.tasks.upstreamGone(event.upstream, `upstream "${event.upstream}" was stopped (${event.reason})`);
	}

	/** The running instances of a per-client server, oldest session first (empty for a shared one). */
	instancesOf(name: string): readonly Instance[] {
		const template = this.upstreams.get(name);
		const set = template === undefined ? undefined : this.instanceSets.get(template);
		return set === undefined ? [] : [...set.values()];
	}

	/** Shuts down every instance of a per-client template (a person's stop or quarantine, a reload). */
	private async retireInstances(template: Upstream, reason: string): Promise<number> {
		const twin = this.eraTwins.retire(template, reason);
		const set = this.instanceSets.get(template);
		if (set === undefined) return twin;
		this.instanceSets.delete(template);
		await Promise.all([...set.values()].map(async instance => this.instanceTotals.retire(template, instance.upstream, this.retire(instance.upstream, reason))));
		return set.size + (await twin);
	}

	/** Lets go of a upstream (removed or replaced by a reload): its events no longer reach surfaces, and it stops. */
	private retire(upstream: Upstream, reason: string): Promise<void> {
		void this.retireInstances(upstream, reason);
		this.detach.get(upstream)?.();
		this.detach.delete(upstream);
		const stopping = upstream.shutdown(reason).catch(() => {});
		this.retiring.add(stopping);
		void stopping.finally(() => this.retiring.delete(stopping));
		return stopping;
	}

	// ---------------------------------------------------------------------
	// Config reload: see `ConfigReload`

	/** Starts watching the config file: an edit that changes it is reloaded after a short quiet. */
	watchConfig(): void {
		this.reloads.watch();
	}

	/** Reads the config file again and applies what changed; one reload at a time (see ConfigReload.reload). */
	async reload(trigger: string, options: {ifChanged?: boolean} = {}): Promise<ReloadRecord> {
		return this.reloads.reload(trigger, options);
	}

	/** Applies a new config: servers added, removed and changed (see ConfigReload.applyConfig). */
	applyConfig(next: HangarConfig, trigger: string, text?: string): ReloadRecord {
		return this.reloads.applyConfig(next, trigger, text);
	}

	/** Starts the upstreams that are not lazy, and those whose tools are not known yet, a few at a time (hundreds at once would stall the event loop for seconds); a call to one still queued starts it at once. */
	launch(concurrency = 4): Promise<void> {
		const queue = [...this.upstreams.values()].filter(upstream => upstream.startsAtLaunch);
		const worker = async () => {
			for (let upstream = queue.shift(); upstream !== undefined; upstream = queue.shift()) {
				if (this.shuttingDown) return;
				await upstream.launch();
			}
		};

		return Promise.all(Array.from({length: Math.min(concurrency, queue.length)}, worker)).then(() => {});
	}

	/** Resolves once no upstream is learning its tools for the first time (Upstream.discovering), or after `ms` (see discovery-wait.ts); later ones reach the client by list_changed. */
	async awaitDiscovery(ms: number): Promise<void> {
		await waitForDiscovery(this, ms, () => !this.shuttingDown && [...this.upstreams.values()].some(upstream => upstream.discovering));
	}

	upstream(name: string): Upstream {
		const upstream = this.upstreams.get(name);
		if (upstream === undefined) throw unknownUpstream(name, [...this.upstreams.keys()]);
		return upstream;
	}

	/** The exposed tool set (see Router). */
	tools(): readonly ExposedTool[] {
		return this.router.tools();
	}

	/** The exposed tools as one client session sees them: a per-client server's are its own instance's list (see client-tools.ts). */
	toolsFor(client: ClientRecord | undefined): readonly ExposedTool[] {
		return this.clientTools.toolsFor(client);
	}

	/** What the exposed definitions cost a client's context, per upstream and in all (see context-cost.ts). */
	contextCost(): ContextCostView {
		this.cost ??= new ContextCost(this.options.hangarTools ?? []);
		return this.cost.view(this.router.tools(), this.router.exposedPrompts(), this.current.hangar.exposure);
	}

	private cost: ContextCost | undefined;

	/** What hangar advertises to a client at initialize, besides tools (see served-capabilities.ts). */
	capabilities(): ServedCapabilities {
		return servedCapabilities(this.upstreams.values());
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
	 * A person's (or a management tool's) command on one upstream: a sentence saying what happened, or a HangarError saying why not and what to do.
	 * `via` says who, for the transition reason ("a person in the TUI", "MCP client \"cursor\""). `approve` is for people only: the gateway never offers it.
	 */
	async act(name: string, action: PersonAction, via: string): Promise<string> {
		const at = Date.now();
		try {
			const said = await this.actNow(name, action, via);
			this.emit('action', {at, upstream: name, action, via, outcome: 'done', message: said});
			return said;
		} catch (error) {
			this.emit('action', {at, upstream: name, action, via, outcome: 'refused', message: errorMessage(error)});
			throw error;
		}
	}

	private async actNow(name: string, action: PersonAction, via: string): Promise<string> {
		const upstream = this.upstream(name);
		if (this.shuttingDown) throw shuttingDown(name, action);
		if (action !== 'quarantine' && action !== 'approve') return this.dispatch(upstream, action, via);
		// What a person sets here must outlive this process: refused when it cannot be saved, never acknowledged and dropped.
		const why = this.store.whyNotSaved();
		if (why !== undefined) throw cannotSave(name, action, why, this.store.dir);
		const said = await this.dispatch(upstream, action, via);
		// Synchronous, so a command that settled without waiting (an upstream that was not running) still does.
		try {
			return `${said}${this.store.saveAction(action)}`;
		} catch (error) {
			throw notSaved(name, action, said, error as Error);
		}
	}

	private async dispatch(upstream: Upstream, action: PersonAction, via: string): Promise<string> {
		if (!this.instanceModes.runsPerClient(upstream)) return sharedAct(upstream, async reason => this.eraTwins.retire(upstream, reason), action, via);
		const running = () => [...(this.instanceSets.get(upstream)?.values() ?? [])].map(instance => instance.upstream);
		return perClientAct(upstream, {running, retire: async (reason: string) => this.retireInstances(upstream, reason)}, action, via);
	}

	// ---------------------------------------------------------------------
	// Routed calls: see `RoutedCalls`

	/** Sends a routed request other than a tool call to the route's upstream or the session's own instance. */
	async request(route: Route, params: Record<string, unknown>, context: RequestContext): Promise<Record<string, unknown>> {
		return this.routed.request(route, params, context);
	}

	/** Sends tasks/get, tasks/result or tasks/cancel for a task the request's client created. */
	async taskRequest(entry: TaskEntry, params: Record<string, unknown>, context: RequestContext): Promise<Record<string, unknown>> {
		return this.routed.taskRequest(entry, params, context);
	}

	/** Calls a routed tool on its upstream or the session's own instance, and writes the request's one record. */
	call(route: Route, args: Record<string, unknown> | undefined, context: RequestContext): Promise<ToolAnswer> {
		return this.routed.call(route, args, context);
	}

	/** A tool call from inside hangar rather than from a client session (the CLI's `call`, the demo's traffic, tests). */
	async callByName(server: string, tool: string, args: Record<string, unknown> | undefined, options: InProcessCall = {}): Promise<CallToolResult> {
		return this.routed.callByName(server, tool, args, options);
	}

	/** Stops every upstream in order (stdin close, SIGTERM, SIGKILL), in parallel, and flushes state. */
	async shutdown(reason: string): Promise<void> {
		if (this.shuttingDown) return;
		this.shuttingDown = true;
		this.logger.info(`shutting down: ${reason}`);
		this.configFile.close();
		const instances = [...this.instanceSets.values()].flatMap(set => [...set.values()].map(instance => instance.upstream)).concat(this.eraTwins.all());
		await Promise.all([...this.upstreams.values(), ...instances].map(async upstream => upstream.shutdown(`hangar is shutting down (${reason})`)));
		await Promise.all(this.retiring);
		await this.store.close();
		this.emit('closed', {at: Date.now(), reason, upstreams: this.upstreams.size});
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
			// A list_changed that carried `_meta` is passed on even when the exposed set did not change: the upstream said it had.
			const kinds = new Set([...this.router.takeChanges(), ...this.listMeta.keys()]);
			for (const kind of kinds) {
				const meta = this.listMeta.get(kind);
				this.listMeta.delete(kind);
				this.emit(changeEvents[kind], meta);
			}

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

/** A person's command on one upstream as it settled: what it said, or why it was refused; a sign-in's steps too (observe/sign-in-audit.ts). */
export type ActionRecord = {at: number; upstream: string; action: PersonAction; via: string; outcome: 'done' | 'refused' | 'started' | 'signed-in' | 'failed' | 'cancelled'; message: string};

/** One instance of a per-client server and the session it serves. */
export type Instance = {upstream: Upstream; client: ClientRecord};
