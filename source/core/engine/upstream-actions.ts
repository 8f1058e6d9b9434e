/**
 * What a person can do to one upstream (start, stop, restart, quarantine,
 * approve, and for a remote upstream that asks for OAuth, sign in and sign
 * out), as the supervisor applies it to a shared server or to a per-client
 * server's template. "A person's action" is the one word for what a TUI
 * key, a CLI verb or a management tool asks the supervisor to do (see
 * docs/architecture.md, "Words").
 */
import {describeApproval} from './upstream/pins.js';
import type {Upstream} from './upstream/upstream.js';
import {hasWorkingSignIn} from '../link/oauth-bearer.js';
import {signOut} from '../link/oauth-sign-in.js';
import {noSignIn, pointlessAction} from './refusals.js';

/** A person's actions on one upstream (see `Supervisor.act`). */
export const personActions = ['start', 'stop', 'restart', 'quarantine', 'approve', 'sign-in', 'sign-out'] as const;
export type PersonAction = (typeof personActions)[number];

export function isPersonAction(value: unknown): value is PersonAction {
	return personActions.some(action => action === value);
}

/**
 * A person's (or a management tool's) command on one upstream, the template
 * of a per-client server included (see Supervisor.act for the rest):
 * resolves with a sentence saying what happened, or rejects with a
 * HangarError that says why not and what to do.
 */
export async function upstreamAct(upstream: Upstream, action: PersonAction, via: string): Promise<string> {
	const name = upstream.name;
	switch (action) {
		case 'start': {
			if (upstream.state === 'ready' || upstream.state === 'degraded') return `"${name}" is already running (${upstream.state}, pid ${upstream.pid ?? 'remote'})`;
			await upstream.start(`started by ${via}`);
			return `started "${name}" (${upstream.state}${upstream.pid === undefined ? '' : `, pid ${upstream.pid}`}, ${upstream.tools.length} tools)`;
		}

		case 'stop': {
			if (upstream.state === 'quarantined' || upstream.state === 'disabled' || upstream.state === 'invalid') throw pointlessAction(name, 'stop', upstream.state);

			if (upstream.state === 'stopped') return `"${name}" is already stopped`;
			await upstream.stop('stopped', `stopped by ${via}`);
			return `stopped "${name}": it does not start on demand until it is started again`;
		}

		case 'restart': {
			await upstream.restart(`restarted by ${via}`);
			return `restarted "${name}" (${upstream.state}${upstream.pid === undefined ? '' : `, pid ${upstream.pid}`})`;
		}

		case 'quarantine': {
			if (upstream.state === 'quarantined') return `"${name}" is already quarantined`;
			if (upstream.state === 'disabled' || upstream.state === 'invalid') throw pointlessAction(name, 'quarantine', upstream.state);

			await upstream.quarantine(`quarantined by ${via}`);
			return `quarantined "${name}": stopped, tools hidden, calls refused until a person approves it`;
		}

		case 'sign-in': {
			// The person signed in (mcp-hangar auth wrote the token store): the upstream reconnects with the new tokens.
			const {launch} = upstream.config;
			if (launch.kind !== 'remote') throw noSignIn(name, 'sign-in', 'it is a command, not a remote ("url") server', true);
			if (launch.kind !== 'remote' || launch.auth === undefined) throw noSignIn(name, 'sign-in', 'it is not a remote server that signs in with OAuth');
			if (!hasWorkingSignIn(name, launch)) throw noSignIn(name, 'sign-in', 'the token store holds no working sign-in for it');
			await upstream.restart(`signed in by ${via}`);
			return `"${name}" is signed in: restarted with the new tokens (${upstream.state})`;
		}

		case 'sign-out': {
			const {launch} = upstream.config;
			if (launch.kind !== 'remote') throw noSignIn(name, 'sign-out', 'it is a command, not a remote ("url") server', true);
			if (launch.kind !== 'remote' || launch.auth === undefined) throw noSignIn(name, 'sign-out', 'it is not a remote server that signs in with OAuth');
			signOut(name, {...launch, auth: launch.auth});
			// Without tokens the restart ends in needs-sign-in: what a sign-out is for, not a failure.
			await upstream.restart(`signed out by ${via}`).catch((error: unknown) => {
				if (upstream.state !== 'needs-sign-in') throw error;
			});
			return `signed out of "${name}": its tokens are forgotten (${upstream.state})`;
		}

		case 'approve': {
			const wasQuarantined = upstream.state === 'quarantined';
			const plan = upstream.approve(`approved by ${via}`);
			const pinned = `pinned ${describeApproval(plan)}`;
			// Started at launch had it not been quarantined (lazy is false, or its tools were never listed): start it now.
			const starting = upstream.startsAtLaunch;
			if (starting) void upstream.launch();
			const next = starting ? (upstream.config.lazy ? '; starting it once to learn its tools' : '; starting it (lazy is false)') : '';
			return wasQuarantined ? `approved "${name}": quarantine lifted${starting ? '' : ' (now cold)'}, ${pinned}${next}` : `approved "${name}": ${pinned}${next}`;
		}
	}
}

/**
 * A command on a shared server: the upstream's own, and its era twin (a
 * dual-era upstream's 2026-07-28 mode, engine/clients/era-twins.ts) follows
 * a stop, restart or quarantine: stopped now, started again by a 2026-07-28
 * client's next request (after a stop or quarantine the server refuses).
 */
export async function sharedAct(upstream: Upstream, retireTwin: (reason: string) => Promise<number>, action: PersonAction, via: string): Promise<string> {
	const said = await upstreamAct(upstream, action, via);
	if (action !== 'stop' && action !== 'restart' && action !== 'quarantine') return said;
	const twins = await retireTwin(`${action === 'stop' ? 'stopped' : action === 'restart' ? 'restarted' : 'quarantined'} by ${via}`);
	return twins === 0 ? said : `${said} (its era twin, its 2026-07-28 mode, stopped too)`;
}

/** The instances of one per-client server, as a command on it reaches them. */
export type PerClientInstances = {running: () => Upstream[]; retire: (reason: string) => Promise<number>};

/**
 * A command on a per-client server applies to all its instances: stop and
 * quarantine shut every instance down (the template then refuses, so none
 * starts again), restart restarts each running one. Start and approve act
 * on the template; instances start at each session's next request.
 */
export async function perClientAct(template: Upstream, instances: PerClientInstances, action: PersonAction, via: string): Promise<string> {
	const name = template.name;
	const count = instances.running().length;
	const ofInstances = (count: number) => `${count} instance${count === 1 ? '' : 's'}`;
	switch (action) {
		case 'stop':
		case 'quarantine': {
			const said = await upstreamAct(template, action, via);
			// The template is switched off first, so no new instance can start while these stop.
			const stopped = await instances.retire( action === 'stop' ? `stopped by ${via}` : `quarantined by ${via}`);
			return `${said} (${ofInstances(stopped)} stopped)`;
		}

		case 'restart': {
			const running = instances.running().filter(instance => instance.state !== 'cold');
			if (running.length === 0) return `"${name}" runs one instance per client session and none is running (${ofInstances(count)}); each starts at its session's next request`;
			await Promise.all(running.map(async instance => instance.restart(`restarted by ${via}`)));
			return `restarted "${name}": ${ofInstances(running.length)} (${running.map(instance => `${instance.name}: ${instance.state}${instance.pid === undefined ? '' : `, pid ${instance.pid}`}`).join('; ')})`;
		}

		case 'sign-in':
		case 'sign-out': {
			// The template checks the sign-in; each instance that runs or waits for one reconnects with the new tokens (or none) at once, so its state says so before its next call.
			const said = await upstreamAct(template, action, via);
			const affected = instances.running().filter(instance => instance.state !== 'cold' && instance.state !== 'stopped');
			if (affected.length === 0) return said;
			const done = action === 'sign-in' ? 'signed in' : 'signed out';
			await Promise.all(
				affected.map(async instance =>
					instance.restart(`${done} by ${via}`).catch((error: unknown) => {
						// Without tokens the restart ends in needs-sign-in: what a sign-out is for, not a failure.
						if (instance.state !== 'needs-sign-in') throw error;
					}),
				),
			);
			const states = affected.map(instance => `${instance.name}: ${instance.state}`).join('; ');
			return action === 'sign-in' ? `"${name}" is signed in: ${ofInstances(affected.length)} restarted with the new tokens (${states})` : `signed out of "${name}": its tokens are forgotten; ${ofInstances(affected.length)} restarted (${states})`;
		}

		case 'start':
		case 'approve': {
			return upstreamAct(template, action, via);
		}
	}
}
