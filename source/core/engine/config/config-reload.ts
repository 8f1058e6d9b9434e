/**
 * Reloading the config file: read again on an edit (the watcher), a
 * person's reload or SIGHUP, and applied as a diff. Added servers appear,
 * removed ones stop, changed ones are replaced; a file that does not
 * validate is refused and the running config stays. One reload at a time.
 */
import fs from 'node:fs';
import type {Logger} from '../../base/logger.js';
import {ConfigError, logConfigIssues, parseConfigText, type HangarConfig, type ServerConfig} from '../../config/read-config.js';
import {shuttingDown} from '../refusals.js';
import type {Upstream} from '../upstream/upstream.js';
import {describeDiff, diffConfigs, isEmptyDiff} from './config-diff.js';
import {hashText, type ConfigFile, type ReloadRecord} from './running-config.js';

/** What a reload is given by the supervisor: the config that runs, its upstreams, and how to add and retire one. */
export type ConfigReloadDeps = {
	configFile: ConfigFile;
	logger: Logger;
	/** How the config file was read (`--state-dir` overrides the file's stateDir): reloads read it the same way. */
	loadOptions: {stateDir?: string | undefined} | undefined;
	/** The config that runs now. */
	current(): HangarConfig;
	/** Makes `applied` the config that runs. */
	replace(applied: HangarConfig): void;
	upstreams: Map<string, Upstream>;
	addUpstream(server: ServerConfig, config: HangarConfig): Upstream;
	retire(upstream: Upstream, reason: string): Promise<void>;
	markToolsDirty(): void;
	shuttingDown(): boolean;
	/** A reload was applied, found nothing to do, or was refused. */
	reloaded(record: ReloadRecord): void;
};

export class ConfigReload {
	private reloading: Promise<ReloadRecord> | undefined;

	constructor(private readonly deps: ConfigReloadDeps) {}

	/** Starts watching the config file: an edit that changes it is reloaded after a short quiet. */
	watch(): void {
		this.deps.configFile.watch(
			() => {
				void this.reload('the config file changed', {ifChanged: true});
			},
			error => this.deps.logger.warn(`cannot watch ${this.deps.current().path} for changes (${error.message}); reload with \`mcp-hangar reload\` or SIGHUP to serve`),
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
		const file = this.deps.current().path;
		let text: string | undefined;
		let next: HangarConfig;
		try {
			text = fs.readFileSync(file, 'utf8');
			if (ifChanged && this.deps.configFile.runs(hashText(text))) return this.finishReload({at: Date.now(), trigger, outcome: 'unchanged', summary: 'the file says what already runs', diff: null, error: null}, text);
			next = parseConfigText(text, file, this.deps.loadOptions);
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
		if (this.deps.shuttingDown()) throw shuttingDown(undefined, 'reload the config');
		const diff = diffConfigs(this.deps.current(), next);
		const applied: HangarConfig = diff.settings.restartHangar.length === 0 ? next : {...next, hangar: {...next.hangar, stateDir: this.deps.current().hangar.stateDir}};
		const record: ReloadRecord = {at: Date.now(), trigger, outcome: isEmptyDiff(diff) ? 'unchanged' : 'applied', summary: describeDiff(diff), diff, error: null};
		this.deps.replace(applied);
		logConfigIssues(applied, this.deps.logger);
		const note = `config reload: ${trigger}`;
		for (const name of diff.removed) {
			const upstream = this.deps.upstreams.get(name)!;
			this.deps.upstreams.delete(name);
			void this.deps.retire(upstream, `removed from the config (${note})`);
		}

		for (const {name, fields} of diff.changed) {
			const old = this.deps.upstreams.get(name)!;
			const wasRunning = old.state === 'ready' || old.state === 'degraded' || old.state === 'starting';
			const server = applied.servers.find(entry => entry.name === name)!;
			const upstream = this.deps.addUpstream(server, applied);
			upstream.log.push('hangar', `${fields.join(', ')} changed; replaced${wasRunning ? ' and started again' : ''} (${note})`);
			const stopped = this.deps.retire(old, `its config changed: ${fields.join(', ')} (${note})`);
			// One process at a time: the new one starts once the old one is gone.
			void stopped.then(async () => {
				if (this.deps.shuttingDown() || this.deps.upstreams.get(name) !== upstream) return;
				if (wasRunning && upstream.state === 'cold') await upstream.start(`its config changed: ${fields.join(', ')} (${note})`).catch(() => {});
				else await upstream.launch();
			});
		}

		for (const name of diff.added) {
			const upstream = this.deps.addUpstream(applied.servers.find(entry => entry.name === name)!, applied);
			upstream.log.push('hangar', `added to the config (${note})`);
			void upstream.launch();
		}

		this.deps.markToolsDirty();
		return this.finishReload(record, text, diff.settings.restartHangar);
	}

	private finishReload(record: ReloadRecord, text: string | undefined, unapplied: string[] = []): ReloadRecord {
		this.deps.configFile.record(record, text === undefined ? undefined : hashText(text), unapplied);
		const line = `config reload (${record.trigger}): ${record.outcome}: ${record.summary}`;
		if (record.outcome === 'refused') this.deps.logger.error(`${line}\n${record.error ?? ''}`);
		else this.deps.logger.info(line);
		this.deps.reloaded(record);
		return record;
	}
}
