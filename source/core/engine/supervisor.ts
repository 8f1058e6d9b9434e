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
import fs from 'node:fs';
import {CallLog} from './call-log.js';
import {ClientRegistry, type ClientRecord} from './clients/clients.js';
import {SessionRelay} from './clients/client-relay.js';
import {ClientTools} from './clients/client-tools.js';
import {InstanceModes} from './clients/instance-mode.js';
import {ConfigError, logConfigIssues, parseConfigText, type HangarConfig, type ServerConfig, type ToolDefinition} from '../config/read-config.js';
import {ContextCost, type ContextCostView} from './upstream/context-cost.js';
import {describeDiff, diffConfigs, isEmptyDiff} from './config/config-diff.js';
import {ConfigFile, hashText, type ReloadRecord} from './config/running-config.js';
import {isPersonAction, perClientAct, personActions, upstreamAct, type PersonAction} from './upstream-commands.js';
import {describeClash} from './routing/exposed-names.js';
import type {Logger} from '../base/logger.js';
import {errorMessage} from '../base/errors.js';
import {launchSecrets, registerSecrets} from '../base/secret-mask.js';
import {LiveRequest, type ProgressUpdate, type RequestContext} from './request-context.js';
import {Upstream} from './upstream/upstream.js';
import type {TransitionEvent} from './upstream/upstream-state.js';
import {cannotSave, notSaved, shuttingDown, taskLost, unknownUpstream} from './refusals.js';
import {Router, takesPart, type ExposedKind, type ExposedTool, type NameClash, type Route} from './routing/router.js';
import {Subscriptions} from './routing/subscriptions.js';
import {TaskBook, isCreateTaskResult, type TaskEntry} from './routing/task-book.js';
import type {ServerCapabilities} from './upstream/catalog.js';
import type {StateStore} from './state-store.js';
import type {ToolSearchHit} from './routing/tool-search.js';
import {UpstreamRpcError, relatedTaskKey, type CallToolResult} from '../link/connection.js';
import {isPlainObject} from '../wire/message-classifier.js';
import type {RequestTracing, TraceScope} from './observe/trace-scope.js';
import type {CallContext} from './upstream/call-path.js';

export type {ExposedTool, NameClash};

/** What hangar can serve to a client besides tools, from every upstream's capabilities (see `Supervisor.capabilities`). */
export type ServedCapabilities = {
	resources?: {subscribe?: boolean; listChanged: boolean};
	prompts?: {listChanged: boolean};
	completions?: Record<string, never>;
	/** 2025-11-25 tasks: what any upstream offers of `list`, `cancel` and `requests.tools.call`. */
	tasks?: {list?: Record<string, never>; cancel?: Record<string, never>; requests?: {tools?: {call?: Record<string, never>}}};
};

const changeEvents: Record<ExposedKind, 'toolsChanged' | 'resourcesChanged' | 'promptsChanged'> = {
	tools: 'toolsChanged',
	resources: 'resourcesChanged',
	prompts: 'promptsChanged',
};

export {describeClash, isPersonAction, personActions, type PersonAction};

/** A tasks/result answer's `related-task` `_meta` with hangar's id for the task. */
function exposeRelatedTask(result: Record<string, unknown>, entry: TaskEntry): Record<string, unknown> {
	const meta = result['_meta'];
	if (!isPlainObject(meta) || !isPlainObject(meta[relatedTaskKey]) || meta[relatedTaskKey]['taskId'] !== entry.upstreamId) return result;
	return {...result, _meta: {...meta, [relatedTaskKey]: {...meta[relatedTaskKey], taskId: entry.id}}};
}

export type SupervisorOptions = {
	/** How the config file was read (`--state-dir` overrides the file's stateDir): reloads read it the same way. */
	loadOptions?: {stateDir?: string | undefined};
	/** Hangar's own tools as clients list them (the gateway's hangar_* tools), for the context cost (default none). */
	hangarTools?: readonly ToolDefinition[];
};

export class Supervisor extends EventEmitter<{
	transition: [TransitionEvent];
	toolsChanged: [];
	resourcesChanged: [];
	promptsChanged: [];
	activity: [string];
	/** What one client session sees of a per-client server's tools changed (its own instance listed them): its session id. */
	clientToolsChanged: [number];
	/** A reload was applied, found nothing to do, or was refused. */
	reload: [ReloadRecord];
	/** A person's (or a management tool's) command on one upstream, as it settled (the audit file's). */
	action: [ActionRecord];
	/** Shutdown is over: every upstream stopped, the state saved. */
	closed: [];
}> {
	readonly upstreams = new Map<string, Upstream>();
	/** Where each request goes: exposed names, hangar_call, hidden owners, "did you mean". */
	readonly router = new Router(this.upstreams);
	/** Resource subscriptions of every session, counted per upstream resource. */
	readonly subscriptions: Subscriptions;
	/** The clashes last logged, so each is logged when it appears, not on every change. */
	private loggedClashes = '';
	private emitScheduled = false;
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
	private reloading: Promise<ReloadRecord> | undefined;
	/** How many instances of each upstream run ("instances"), and what an "auto" one learned. */
	readonly instanceModes: InstanceModes;
	/** The instances of each per-client template, by client session id. */
	private readonly instanceSets = new Map<Upstream, Map<number, Instance>>();
	/** The tools each client session sees of the per-client servers: its own instance's. */
	readonly clientTools = new ClientTools({
		tools: () => this.router.tools(),
		perClientTemplates: () => [...this.upstreams.values()].filter(upstream => this.instanceModes.runsPerClient(upstream)),
		instanceOf: (template, client) => this.instanceSets.get(template)?.get(client.id)?.upstream,
		instanceFor: (template, client) => this.instanceFor(template, client),
	});
	/** OpenTelemetry spans of routed requests, when the OTEL_* variables ask for them (see observe/trace-scope.ts). */
	tracing: RequestTracing | undefined;

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
		});
		this.tasks = new TaskBook(this.calls, logger.child('tasks'));
		this.subscriptions = new Subscriptions(this.router, logger, (upstream, subscriber) => this.instanceFor(upstream, subscriber.client));
		this.current = config;
		this.configFile = new ConfigFile(config.path);
		for (const server of config.servers) this.addUpstream(server, config);
		// A session's instances must not outlive it.
		this.clients.on('removed', record => {
			this.tasks.dropClient(record);
			for (const [template, set] of this.instanceSets) {
				const instance = set.get(record.id);
				if (instance === undefined) continue;
				set.delete(record.id);
				void this.retire(instance.upstream, `its client session (${record.label}) closed`).then(() => this.emit('activity', template.name));
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
			// A per-client server's template runs only to learn its tools (at launch, or a person's start): no client is served by it.
			if (event.to === 'ready' && this.instanceModes.runsPerClient(upstream)) {
				void upstream.stop('cold', `its tools are known; each client session runs its own instance ("instances": "${upstream.config.instances}")`).catch(() => {});
			}
		};

		const onTools = (): void => this.markToolsDirty();
		const onResourceUpdated = (uri: string, meta: Record<string, unknown> | undefined): void => this.subscriptions.updated(server.name, uri, meta);
		const onActivity = (): void => {
			this.emit('activity', server.name);
		};

		const onTaskStatus = this.followTasks(upstream);
		upstream.on('transition', onTransition);
		upstream.on('tools', onTools);
		upstream.on('catalog', onTools);
		upstream.on('resourceUpdated', onResourceUpdated);
		upstream.on('activity', onActivity);
		this.detach.set(upstream, () => {
			upstream.off('transition', onTransition);
			upstream.off('tools', onTools);
			upstream.off('catalog', onTools);
			upstream.off('resourceUpdated', onResourceUpdated);
			upstream.off('activity', onActivity);
			upstream.off('taskStatus', onTaskStatus);
		});
		this.upstreams.set(server.name, upstream);
		return upstream;
	}

	/**
	 * The upstream that serves `client`'s requests for `template`: the
	 * template itself for a shared server, or the session's own instance of a
	 * per-client server, created on its first request. While a person or the
	 * config has switched the server off, the template answers (with its
	 * refusal), so no instance starts.
	 */
	instanceFor(template: Upstream, client: ClientRecord | undefined): Upstream {
		if (!this.instanceModes.runsPerClient(template) || client === undefined || template.admin !== 'enabled' || template.state === 'invalid' || this.shuttingDown) return template;
		// A session that has closed gets no instance: nothing would ever stop it.
		if (!this.clients.has(client)) return template;
		let set = this.instanceSets.get(template);
		if (set === undefined) {
			set = new Map();
			this.instanceSets.set(template, set);
		}

		const existing = set.get(client.id);
		if (existing !== undefined) return existing.upstream;
		const name = `${template.name}#${client.id}`;
		const logger = this.logger.child(name);
		const upstream = new Upstream(template.config, this.current.hangar, this.store, logger, new SessionRelay(this.clients, client, name, logger), name);
		const onTransition = (event: TransitionEvent): void => {
			this.tasksFollow(event);
			if (event.to === 'ready' && event.from === 'starting') this.subscriptions.resubscribe(upstream);
			this.emit('transition', event);
		};

		const onActivity = (): void => {
			this.emit('activity', template.name);
		};

		const onResourceUpdated = (uri: string, meta: Record<string, unknown> | undefined): void => this.subscriptions.updated(name, uri, meta);
		// Its list is its client's (it is told that client's capabilities): that session's tools/list shows it.
		const onTools = (): void => {
			this.clientTools.learned(template, upstream, client);
			this.emit('clientToolsChanged', client.id);
		};

		const onTaskStatus = this.followTasks(upstream);
		upstream.on('transition', onTransition);
		upstream.on('activity', onActivity);
		upstream.on('resourceUpdated', onResourceUpdated);
		upstream.on('tools', onTools);
		this.detach.set(upstream, () => {
			upstream.off('transition', onTransition);
			upstream.off('activity', onActivity);
			upstream.off('resourceUpdated', onResourceUpdated);
			upstream.off('tools', onTools);
			upstream.off('taskStatus', onTaskStatus);
		});
		upstream.log.push('hangar', `instance of "${template.name}" for the client session ${client.label}${client.name === null ? '' : ` ("${client.name}")`}`);
		set.set(client.id, {upstream, client});
		this.emit('activity', template.name);
		return upstream;
	}

	/** Ties an upstream (or instance) to the task book: its status notifications, and the ids hangar handed out for its tasks. */
	private followTasks(upstream: Upstream): (params: Record<string, unknown>) => void {
		const onTaskStatus = (params: Record<string, unknown>): void => this.tasks.statusFromUpstream(upstream.name, params);
		upstream.on('taskStatus', onTaskStatus);
		upstream.exposedTaskId = upstreamTaskId => this.tasks.exposedIdOf(upstream.name, upstreamTaskId);
		return onTaskStatus;
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
		const set = this.instanceSets.get(template);
		if (set === undefined) return 0;
		this.instanceSets.delete(template);
		await Promise.all([...set.values()].map(async instance => this.retire(instance.upstream, reason)));
		return set.size;
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

	/** Starts watching the config file: an edit that changes it is reloaded after a short quiet. */
	watchConfig(): void {
		this.configFile.watch(
			() => {
				void this.reload('the config file changed', {ifChanged: true});
			},
			error => this.logger.warn(`cannot watch ${this.config.path} for changes (${error.message}); reload with \`mcp-hangar reload\` or SIGHUP to serve`),
		);
	}

	/**
	 * Reads the config file again and applies what changed (see applyConfig).
	 * A file that does not validate is refused: the running config stays and
	 * the refusal is recorded, logged and shown as drift. One reload at a time;
	 * one asked for meanwhile runs after it. `ifChanged` (the file watcher):
	 * a file whose text is what runs is not read again. A person's reload
	 * (and SIGHUP) always is, so an edited `envFile` is picked up too.
	 */
	async reload(trigger: string, options: {ifChanged?: boolean} = {}): Promise<ReloadRecord> {
		const previous = this.reloading ?? Promise.resolve(undefined);
		const next = previous.then(() => this.reloadNow(trigger, options.ifChanged === true));
		this.reloading = next;
		void next.finally(() => {
			if (this.reloading === next) this.reloading = undefined;
		});
		return next;
	}

	private reloadNow(trigger: string, ifChanged: boolean): ReloadRecord {
		const file = this.config.path;
		let text: string | undefined;
		let next: HangarConfig;
		try {
			text = fs.readFileSync(file, 'utf8');
			if (ifChanged && this.configFile.runs(hashText(text))) return this.finishReload({at: Date.now(), trigger, outcome: 'unchanged', summary: 'the file says what already runs', diff: null, error: null}, text);
			next = parseConfigText(text, file, this.options.loadOptions);
		} catch (error) {
			const message = error instanceof ConfigError ? error.message : `cannot read ${file}: ${(error as Error).message}`;
			return this.finishReload({at: Date.now(), trigger, outcome: 'refused', summary: `${file} was not applied; the running config stays`, diff: null, error: message}, text);
		}

		return this.applyConfig(next, trigger, text);
	}

	/**
	 * Applies a new config: added servers appear (and start if their launch
	 * rules say so), removed ones stop and their tools leave, changed ones
	 * (any resolved field, env included) are replaced and started again if
	 * they were running, unchanged ones are not touched. Settings that need a
	 * restart of hangar keep their running values (the record says so).
	 */
	applyConfig(next: HangarConfig, trigger: string, text?: string): ReloadRecord {
		if (this.shuttingDown) throw shuttingDown(undefined, 'reload the config');
		const diff = diffConfigs(this.current, next);
		const applied: HangarConfig = diff.settings.restartHangar.length === 0 ? next : {...next, hangar: {...next.hangar, stateDir: this.current.hangar.stateDir}};
		const record: ReloadRecord = {at: Date.now(), trigger, outcome: isEmptyDiff(diff) ? 'unchanged' : 'applied', summary: describeDiff(diff), diff, error: null};
		this.current = applied;
		logConfigIssues(applied, this.logger);
		const note = `config reload: ${trigger}`;
		for (const name of diff.removed) {
			const upstream = this.upstreams.get(name)!;
			this.upstreams.delete(name);
			void this.retire(upstream, `removed from the config (${note})`);
		}

		for (const {name, fields} of diff.changed) {
			const old = this.upstreams.get(name)!;
			const wasRunning = old.state === 'ready' || old.state === 'degraded' || old.state === 'starting';
			const server = applied.servers.find(entry => entry.name === name)!;
			const upstream = this.addUpstream(server, applied);
			upstream.log.push('hangar', `${fields.join(', ')} changed; replaced${wasRunning ? ' and started again' : ''} (${note})`);
			const stopped = this.retire(old, `its config changed: ${fields.join(', ')} (${note})`);
			// One process at a time: the new one starts once the old one is gone.
			void stopped.then(async () => {
				if (this.shuttingDown || this.upstreams.get(name) !== upstream) return;
				if (wasRunning && upstream.state === 'cold') await upstream.start(`its config changed: ${fields.join(', ')} (${note})`).catch(() => {});
				else await upstream.launch();
			});
		}

		for (const name of diff.added) {
			const upstream = this.addUpstream(applied.servers.find(entry => entry.name === name)!, applied);
			upstream.log.push('hangar', `added to the config (${note})`);
			void upstream.launch();
		}

		this.markToolsDirty();
		return this.finishReload(record, text, diff.settings.restartHangar);
	}

	private finishReload(record: ReloadRecord, text: string | undefined, unapplied: string[] = []): ReloadRecord {
		this.configFile.record(record, text === undefined ? undefined : hashText(text), unapplied);
		const line = `config reload (${record.trigger}): ${record.outcome}: ${record.summary}`;
		if (record.outcome === 'refused') this.logger.error(`${line}\n${record.error ?? ''}`);
		else this.logger.info(line);
		this.emit('reload', record);
		return record;
	}

	/**
	 * Starts the upstreams that are not lazy, and those whose tools are not
	 * known yet, a few at a time: spawning hundreds of processes at once would
	 * stall the event loop (and every client's requests) for seconds.
	 * A call to one still waiting in this queue starts it at once.
	 */
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

	/**
	 * Resolves once no upstream is learning its tools for the first time (see
	 * Upstream.discovering), or after `ms`: what a client's first tools/list
	 * and prompts/list wait for (hangar.firstListWaitSeconds), so a first run
	 * does not answer with the hangar_* tools alone. Upstreams that answer
	 * later reach the client by list_changed. Driven by transitions (every
	 * start ends in one), never by polling.
	 */
	async awaitDiscovery(ms: number): Promise<void> {
		if (ms <= 0) return;
		const deadline = Date.now() + ms;
		const discovering = () => !this.shuttingDown && [...this.upstreams.values()].some(upstream => upstream.discovering);
		while (discovering()) {
			const left = deadline - Date.now();
			if (left <= 0) return;
			await new Promise<void>(resolve => {
				const done = (): void => {
					clearTimeout(timer);
					this.off('transition', done);
					resolve();
				};

				const timer = setTimeout(done, left);
				this.on('transition', done);
			});
		}
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
		for (const upstream of this.upstreams.values()) {
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
			this.store.saveNow();
		} catch (error) {
			throw notSaved(name, action, said, error as Error);
		}

		return said;
	}

	private async dispatch(upstream: Upstream, action: PersonAction, via: string): Promise<string> {
		if (!this.instanceModes.runsPerClient(upstream)) return upstreamAct(upstream, action, via);
		const running = () => [...(this.instanceSets.get(upstream)?.values() ?? [])].map(instance => instance.upstream);
		return perClientAct(upstream, {running, retire: async (reason: string) => this.retireInstances(upstream, reason)}, action, via);
	}

	/**
	 * Sends a routed request other than a tool call (resources/read,
	 * prompts/get, completion/complete) to the route's upstream, or to the
	 * session's own instance of a per-client server (see Upstream.request).
	 * While it is in flight, what that upstream asks a client goes to this
	 * request's client.
	 */
	async request(route: Route, params: Record<string, unknown>, context: RequestContext): Promise<Record<string, unknown>> {
		const operation = `${context.method} "${route.localName}"`;
		if (this.shuttingDown) throw shuttingDown(route.upstream.name, operation);
		const instance = this.instanceFor(route.upstream, context.client);
		context.record.upstream = route.upstream.name;
		context.record.target = route.localName;
		const ended = context.client?.callBegan(route.upstream.name, context.id);
		const scope = this.tracing?.begin(context, route.upstream.name, route.localName, instance.name);
		try {
			const result = await instance.request(context.method, scope === undefined ? params : {...params, _meta: scope.meta}, operation, context);
			scope?.end('ok');
			return result;
		} catch (error) {
			scope?.end(context.signal.aborted ? 'cancelled' : 'error', error);
			throw error;
		} finally {
			ended?.();
		}
	}

	/**
	 * Sends tasks/get, tasks/result or tasks/cancel for a task the request's
	 * client created to the instance that runs it, under the upstream's own
	 * id; the answer comes back with hangar's. A task whose upstream crashed
	 * or stopped is answered from the book: tasks/get with its failed status,
	 * the rest with the reason.
	 */
	async taskRequest(entry: TaskEntry, params: Record<string, unknown>, context: RequestContext): Promise<Record<string, unknown>> {
		const operation = `${context.method} "${entry.id}"`;
		if (entry.lost !== undefined) {
			if (context.method === 'tasks/get') return this.tasks.expose(entry, entry.task);
			throw taskLost(entry.instance.name, operation, entry.lost);
		}

		if (this.shuttingDown) throw shuttingDown(entry.server, operation);
		context.record.upstream = entry.server;
		context.record.target = entry.tool;
		const ended = context.client?.callBegan(entry.server, context.id);
		try {
			const result = await entry.instance.request(context.method, {...params, taskId: entry.upstreamId}, operation, context);
			if (context.method === 'tasks/result') {
				this.tasks.ended(entry);
				return exposeRelatedTask(result, entry);
			}

			this.tasks.observed(entry, result);
			return this.tasks.expose(entry, result);
		} catch (error) {
			// The upstream answered tasks/result with the task's error: the result is fetched.
			if (context.method === 'tasks/result' && error instanceof UpstreamRpcError) this.tasks.ended(entry);
			throw error;
		} finally {
			ended?.();
		}
	}

	/**
	 * Calls a routed tool on its upstream, or on the session's own instance
	 * of a per-client server, and writes the request's one record to the
	 * calls log. While it is in flight, what that upstream asks a client goes
	 * to this call's client.
	 */
	async call(route: Route, args: Record<string, unknown> | undefined, context: RequestContext): Promise<CallToolResult> {
		const {upstream, localName: tool} = route;
		if (this.shuttingDown) throw shuttingDown(upstream.name, `tools/call "${tool}"`);
		const instance = this.instanceFor(upstream, context.client);
		context.record.upstream = upstream.name;
		context.record.target = tool;
		const ended = context.client?.callBegan(upstream.name, context.id);
		const scope = this.tracing?.begin(context, upstream.name, tool, instance.name);
		try {
			const result = await instance.callTool(tool, args, scope === undefined ? context : traced(context, scope));
			scope?.end(result.isError === true ? 'tool-error' : 'ok');
			if (instance !== upstream) upstream.metrics.recordInHistory(performance.now() - context.record.began, false);
			this.calls.write(context, args, {result});
			// Run as a task: the client gets hangar's id for it, and only it can reach the task.
			if (context.task !== undefined && context.client !== undefined && isCreateTaskResult(result)) {
				return this.tasks.created({instance, server: upstream.name, client: context.client, tool, logSeq: this.calls.lastSeq, began: context.record.began}, result) as CallToolResult;
			}

			return result;
		} catch (error) {
			scope?.end(context.signal.aborted ? 'cancelled' : 'error', error);
			if (instance !== upstream) upstream.metrics.recordInHistory(performance.now() - context.record.began, true);
			this.calls.write(context, args, {error});
			throw error;
		} finally {
			ended?.();
		}
	}

	/**
	 * A tool call from inside hangar rather than from a client session (the
	 * CLI's `call` without a running supervisor, the demo's traffic, tests):
	 * its own request context, routed to `server` without the router.
	 */
	async callByName(server: string, tool: string, args: Record<string, unknown> | undefined, options: InProcessCall = {}): Promise<CallToolResult> {
		if (this.shuttingDown) throw shuttingDown(server, `tools/call "${tool}"`);
		const route: Route = {kind: 'tool', upstream: this.upstream(server), localName: tool};
		const context = new LiveRequest({id: `in-process-${++this.inProcessCalls}`, method: 'tools/call', caller: options.caller, client: options.client, signal: options.signal, onProgress: options.onProgress});
		try {
			return await this.call(route, args, context);
		} finally {
			context.end();
		}
	}

	private inProcessCalls = 0;

	/** Stops every upstream in order (stdin close, SIGTERM, SIGKILL), in parallel, and flushes state. */
	async shutdown(reason: string): Promise<void> {
		if (this.shuttingDown) return;
		this.shuttingDown = true;
		this.logger.info(`shutting down: ${reason}`);
		this.configFile.close();
		const instances = [...this.instanceSets.values()].flatMap(set => [...set.values()].map(instance => instance.upstream));
		await Promise.all([...this.upstreams.values(), ...instances].map(async upstream => upstream.shutdown(`hangar is shutting down (${reason})`)));
		await Promise.all(this.retiring);
		await this.store.close();
		this.emit('closed');
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

/** A call's context with the `_meta` its trace gives the upstream (only when tracing is on). */
function traced(context: RequestContext, scope: TraceScope): CallContext {
	return {signal: context.signal, deadline: context.deadline, onProgress: context.onProgress, meta: scope.meta, correlationId: context.correlationId, client: context.client, id: context.id};
}

/** What an in-process caller may give a tool call (see Supervisor.callByName). */
export type InProcessCall = {
	signal?: AbortSignal | undefined;
	onProgress?: ((update: ProgressUpdate) => void) | undefined;
	/** Names the caller in the calls log (default "hangar"). */
	caller?: string | undefined;
	/** Calls as this client session would (tests, and in-process callers that stand in for one). */
	client?: ClientRecord | undefined;
};

/** A person's command on one upstream as it settled: what it said, or why it was refused. */
export type ActionRecord = {at: number; upstream: string; action: PersonAction; via: string; outcome: 'done' | 'refused'; message: string};

/** One instance of a per-client server and the session it serves. */
export type Instance = {upstream: Upstream; client: ClientRecord};
