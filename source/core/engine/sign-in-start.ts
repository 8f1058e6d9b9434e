/**
 * A sign-in a person starts from the TUI (key `a`): the supervisor runs the
 * same flow as `mcp-hangar auth` (link/oauth-sign-in.ts) in its own
 * process, so it works the same in process and attached over the socket.
 * `start` answers as soon as the authorization URL exists (the loopback
 * listener is open by then): the TUI shows it, and the browser is opened
 * only where the supervisor runs on a desktop session (link/browser-open.ts).
 * When the redirect lands, the tokens are stored and the person's `sign-in`
 * action restarts the upstream, audited like every action; the audit trail
 * also has the flow's steps (started, signed-in, failed: observe/sign-in-audit.ts).
 * While it waits and when it fails (the browser never comes back, the
 * authorization server refuses, a wrong issuer), the upstream's status says
 * so (`signInAttemptOf`, the failure also as its last error), so the TUI that
 * showed the URL replaces it with the failure and its reason. The URL (its
 * `state`, the PKCE challenge) goes only to the person who asked: never to
 * the audit trail or a log.
 */
import process from 'node:process';
import {errorMessage} from '../base/errors.js';
import {maskText} from '../base/secret-mask.js';
import {noBrowser, openBrowser} from '../link/browser-open.js';
import {personSignInTimeoutMs, signIn} from '../link/oauth-sign-in.js';
import type {SignInOutcome} from './observe/sign-in-audit.js';
import {noSignIn} from './refusals.js';
import type {Supervisor} from './supervisor.js';
import type {Upstream} from './upstream/upstream.js';

/** A started sign-in: the URL to open, and whether the supervisor opened a browser with it (else why not); `startedAt` (ISO time) names the attempt in the status. */
export type SignInStart = {upstream: string; url: string; startedAt: string; browser: {opened: true} | {opened: false; why: string}};

/** A person's sign-in from the TUI as the status tells it: waiting for the browser, or failed and why (a success leaves none). */
export type SignInAttempt = {startedAt: string; via: string} & ({state: 'waiting'} | {state: 'failed'; at: string; reason: string});

/** The last sign-in attempt started from the TUI for each upstream (an upstream replaced by a reload starts with none). */
const attempts = new WeakMap<Upstream, SignInAttempt>();

/** The sign-in a person started for this upstream, while it waits or after it failed. */
export function signInAttemptOf(upstream: Upstream): SignInAttempt | undefined {
	return attempts.get(upstream);
}

export type SignInStartOptions = {
	/** The person's `sign-in` action once the tokens are stored (Supervisor.act: restarts and audits). */
	signedIn: (name: string, via: string) => Promise<string>;
	/** A step of the flow for the audit trail (started, signed-in, failed), never with the URL (see observe/sign-in-audit.ts). */
	record: (name: string, via: string, outcome: SignInOutcome, message: string) => void;
	/** Environment deciding whether a browser can be opened (default process.env). */
	env?: NodeJS.ProcessEnv;
	timeoutMs?: number;
	/** Told when an attempt starts, succeeds or fails, so the views read it again (the supervisor's `activity`). */
	changed?: (name: string) => void;
};

/** The sign-ins under way, at most one per upstream: a second key press shows the same URL again. */
export class SignInStarts {
	private readonly running = new Map<string, Promise<SignInStart>>();

	constructor(private readonly options: SignInStartOptions) {}

	async start(upstream: Upstream, via: string): Promise<SignInStart> {
		const {name} = upstream;
		const {launch} = upstream.config;
		if (launch.kind !== 'remote') throw noSignIn(name, 'sign-in', 'it is a command, not a remote ("url") server', true);
		if (launch.kind !== 'remote' || launch.auth === undefined) throw noSignIn(name, 'sign-in', 'it is not a remote server that signs in with OAuth');
		if (launch.auth.grant === 'client_credentials') throw noSignIn(name, 'sign-in', 'it is a machine client (client-credentials grant): hangar gets its tokens itself, no browser needed');
		const under = this.running.get(name);
		if (under !== undefined) return under;

		const auth = launch.auth;
		const env = this.options.env ?? process.env;
		const startedAt = new Date().toISOString();
		const changed = (): void => this.options.changed?.(name);
		const started = new Promise<SignInStart>((resolve, reject) => {
			upstream.log.push('hangar', `sign-in started by ${via}: waiting for the browser to come back`);
			this.options.record(name, via, 'started', 'sign-in started: discovering the authorization server, then waiting for the browser');
			attempts.set(upstream, {state: 'waiting', startedAt, via});
			changed();
			const flow = signIn({
				upstream: name,
				launch: {...launch, auth},
				timeoutMs: this.options.timeoutMs ?? personSignInTimeoutMs,
				present(url) {
					const why = noBrowser(env);
					if (why === undefined) openBrowser(url.href);
					resolve({upstream: name, url: url.href, startedAt, browser: why === undefined ? {opened: true} : {opened: false, why}});
				},
			});
			flow.then(
				async result => {
					upstream.log.push('hangar', `signed in (started by ${via}): the tokens are stored`);
					this.options.record(name, via, 'signed-in', `signed in with ${result.issuer} (client: ${result.client}${result.registered ? ', registered now' : ''}; scope: ${result.scope ?? 'none named'})`);
					attempts.delete(upstream);
					changed();
					await this.options.signedIn(name, via).catch((error: unknown) => {
						upstream.log.push('hangar', `signed in, but the restart failed: ${maskText(errorMessage(error))}`);
					});
				},
				(error: unknown) => {
					const message = maskText(errorMessage(error));
					upstream.log.push('hangar', `sign-in failed: ${message}`);
					this.options.record(name, via, 'failed', `signing in failed: ${message}`);
					// The status tells it (the TUI that showed the URL replaces it with this), also as the last error on the row.
					attempts.set(upstream, {state: 'failed', startedAt, via, at: new Date().toISOString(), reason: message});
					upstream.metrics.lastError = `sign-in failed: ${message}`;
					changed();
					// Before the URL existed: the person who pressed the key hears why (after it, the log says it).
					reject(noSignIn(name, 'sign-in', `signing in failed: ${message}`));
				},
			).finally(() => this.running.delete(name));
		});
		this.running.set(name, started);
		return started;
	}
}

/** The sign-ins under way of each supervisor. */
const perSupervisor = new WeakMap<Supervisor, SignInStarts>();

/**
 * Starts a person's OAuth sign-in to a remote upstream in this supervisor's
 * process (the TUI's key, in process or over `hangar/sign-in`): resolves with
 * the authorization URL once the loopback listener waits for it.
 */
export async function startSignIn(supervisor: Supervisor, name: string, via: string): Promise<SignInStart> {
	let starts = perSupervisor.get(supervisor);
	if (starts === undefined) {
		starts = new SignInStarts({
			signedIn: async (upstream, by) => supervisor.act(upstream, 'sign-in', by),
			record(upstream, by, outcome, message) {
				supervisor.emit('action', {at: Date.now(), upstream, action: 'sign-in', via: by, outcome, message});
			},
			changed: upstream => supervisor.emit('activity', upstream),
		});
		perSupervisor.set(supervisor, starts);
	}

	return starts.start(supervisor.upstream(name), via);
}
