/**
 * A person's actions on one upstream, and the supervisor's: start, stop,
 * restart, quarantine, approve, and following a quarantine or approval that
 * another hangar process saved (found when this one took the state dir
 * over). Each checks the state machine first and refuses with a reason
 * (refusals.ts) what the state does not allow; the start, the stop and the
 * waits are the lifecycle's.
 */
import type {Clock} from '../../base/clock.js';
import {maskText} from '../../base/secret-mask.js';
import type {ServerConfig} from '../../config/read-config.js';
import {notApprovable, notStartable, unavailable} from '../refusals.js';
import type {CircuitBreaker} from './circuit-breaker.js';
import type {Lifecycle} from './lifecycle.js';
import {type CallMetrics, quarantinedPrefix} from './metrics.js';
import type {RestartPolicy} from './restart-policy.js';
import type {ApprovalPlan, ToolList} from './tool-list.js';
import type {UpstreamRecord} from './upstream-record.js';
import type {StopTarget, UpstreamMachine} from './upstream-state.js';

/** What the actions are given: the parts they change or read. */
export type PersonActionDeps = {
	/** Its name in refusals (an instance's `<server>#<n>`). */
	name: string;
	config: ServerConfig;
	machine: UpstreamMachine;
	lifecycle: Lifecycle;
	/** Its last error: a lifted quarantine's reason is cleared from it (the transitions keep it in the log). */
	metrics: CallMetrics;
	record: UpstreamRecord;
	restartPolicy: RestartPolicy;
	breaker: CircuitBreaker;
	toolList: ToolList;
	clock: Clock;
};

export class PersonActions {
	constructor(private readonly deps: PersonActionDeps) {}

	/** A person's start: from cold, stopped or dead (resets the restart budget). */
	async start(reason: string): Promise<void> {
		const {machine, lifecycle} = this.deps;
		if (machine.state === 'stopping') await lifecycle.stopping;
		const state = machine.state;
		switch (state) {
			case 'ready':
			case 'degraded': {
				return;
			}

			case 'starting': {
				await lifecycle.starting;
				return;
			}

			case 'quarantined':
			case 'disabled':
			case 'invalid': {
				throw notStartable(this.deps.name, state, this.deps.config.invalid);
			}

			default: {
				this.deps.restartPolicy.reset();
				this.deps.breaker.recordSuccess();
				await lifecycle.begin(reason);
			}
		}
	}

	/** Stops the upstream; `target` says where it lands (cold: idle, stopped: a person, ...). */
	async stop(target: StopTarget, reason: string): Promise<void> {
		return this.deps.lifecycle.stop(target, reason);
	}

	async restart(reason: string): Promise<void> {
		await this.stop('cold', reason);
		await this.start(reason);
	}

	async quarantine(reason: string): Promise<void> {
		this.deps.record.update(upstream => {
			// Kept in state.json: a reason someone typed is masked like everything hangar stores.
			upstream.admin = {state: 'quarantined', at: this.deps.clock.now(), reason: maskText(reason)};
		});
		await this.stop('quarantined', reason);
	}

	/**
	 * A person approves the upstream: lifts a quarantine (back to cold) and pins
	 * its tools as `approvalPlan` says. A quarantine set in the config file can
	 * only be lifted there.
	 */
	approve(reason: string): ApprovalPlan {
		const {name, config, machine} = this.deps;
		if (machine.state === 'quarantined' && config.quarantined) throw notApprovable(name, 'quarantined-by-config');
		if (machine.state === 'disabled') throw notApprovable(name, 'disabled');
		if (machine.state === 'invalid') throw unavailable(name, 'approve', {state: 'invalid', reason: config.invalid ?? 'see its details'});
		const plan = this.deps.toolList.approve();
		if (machine.state === 'quarantined') this.release(reason);
		return plan;
	}

	/**
	 * Follows a quarantine or approval another hangar process saved (found
	 * when this one took the state dir over): stops into quarantine, or
	 * lifts it. True when it was quarantined now.
	 */
	async applySavedAdmin(): Promise<boolean> {
		const {machine, config} = this.deps;
		const admin = this.deps.record.read().admin;
		if (admin?.state === 'quarantined' && machine.state !== 'quarantined' && machine.state !== 'disabled' && machine.state !== 'invalid') {
			await this.stop('quarantined', `${admin.reason} (saved by another hangar process)`);
			return true;
		}

		if (admin === undefined && machine.state === 'quarantined' && !config.quarantined) this.release('approved in another hangar process');
		return false;
	}

	/**
	 * Lifts the quarantine. Its reason was the last error while it held; once a
	 * person approved it, showing it as the current error would be false.
	 */
	private release(reason: string): void {
		this.deps.machine.apply('release', reason);
		if (this.deps.metrics.lastError?.startsWith(quarantinedPrefix)) this.deps.metrics.lastError = undefined;
	}
}
