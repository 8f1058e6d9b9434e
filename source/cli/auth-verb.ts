/**
 * `mcp-hangar auth SERVER [--logout]`: a person's sign-in to a remote
 * upstream that asks for OAuth (the flow is core/link/oauth-sign-in.ts).
 * The browser is opened ($BROWSER, else the platform's opener), or the URL
 * is printed when there is no display or the session is remote. Once the
 * tokens are stored, the supervisor running this config (if any) restarts
 * the upstream with them, so every one of its clients uses this one
 * sign-in.
 */
import process from 'node:process';
import {errorMessage} from '../core/base/errors.js';
import type {Logger} from '../core/base/logger.js';
import {maskText} from '../core/base/secret-mask.js';
import {terminalOutput, terminalText} from '../core/base/terminal-text.js';
import type {HangarConfig} from '../core/config/read-config.js';
import {SupervisorClient, cliClientName} from '../core/endpoints/supervisor-client.js';
import {noBrowser, openBrowser} from '../core/link/browser-open.js';
import {personSignInTimeoutMs, signIn, signInAsMachine, signOut, type OAuthLaunch} from '../core/link/oauth-sign-in.js';
import {auditSignIn, signInAction, type SignInOutcome} from '../core/engine/observe/sign-in-audit.js';
import {readConfig} from './supervisor-verbs.js';

type Output = {out: (text: string) => void; err: (text: string) => void};

/**
 * An error for one line of the output: masked, and escaped whole, newlines
 * too. Its text is often an authorization server's (`error_description`),
 * whose newline would otherwise start a line hangar did not write (the
 * writer keeps newlines for hangar's own multi-line output).
 */
const oneLine = (error: unknown): string => terminalText(maskText(errorMessage(error)));

export type AuthOptions = {configPath: string; stateDir?: string | undefined; logger: Logger; server: string; logout: boolean; browser: boolean};

/**
 * The supervisor running this config is told of the sign-in or sign-out:
 * it records the person's action in its audit trail and restarts the
 * upstream (new tokens, or none); says what happened.
 */
async function tellSupervisor(config: HangarConfig, server: string, action: 'sign-in' | 'sign-out', via: string): Promise<string> {
	const client = await SupervisorClient.connect(config, cliClientName, () => {});
	if (client === undefined) return 'no hangar is running for this config: the next one to start uses the new state';
	try {
		return `the running hangar: ${await client.act(server, action, via)}`;
	} catch (error) {
		return `the running hangar: ${oneLine(error)}`;
	} finally {
		await client.close();
	}
}

export async function authVerb(options: AuthOptions, io: Output = terminalOutput): Promise<number> {
	const {config, invalid} = readConfig(options);
	if (invalid !== undefined) {
		io.err(`mcp-hangar: ${invalid.message}\n`);
		return 1;
	}

	const hangarConfig = config as HangarConfig;
	const entry = hangarConfig.servers.find(server => server.name === options.server);
	if (entry === undefined) {
		io.err(`mcp-hangar: no server "${options.server}" in ${hangarConfig.path}. Servers: ${hangarConfig.servers.map(server => server.name).join(', ') || 'none'}\n`);
		return 2;
	}

	if (entry.invalid !== undefined) {
		io.err(`mcp-hangar: cannot sign in to "${entry.name}": its config entry cannot be used (${entry.invalid})\n`);
		return 1;
	}

	if (entry.launch.kind !== 'remote') {
		io.err(`mcp-hangar: "${entry.name}" is a command, not a "url" server: only remote servers sign in with OAuth\n`);
		return 2;
	}

	const {auth} = entry.launch;
	if (auth === undefined) {
		io.err(`mcp-hangar: "${entry.name}" has no OAuth settings to sign in with\n`);
		return 1;
	}

	const launch: OAuthLaunch = {...entry.launch, auth};
	// Each step of the person's sign-in goes to the audit trail from here (see engine/observe/sign-in-audit.ts).
	const audit = (via: string, outcome: SignInOutcome, message: string): void => {
		auditSignIn(hangarConfig.hangar, options.logger, signInAction(entry.name, via, outcome, message));
	};

	if (options.logout) {
		const had = signOut(entry.name, launch);
		io.out(`${had ? `forgot the tokens and client registration of "${entry.name}"` : `"${entry.name}" had no sign-in`}\n`);
		if (had) io.out(`${await tellSupervisor(hangarConfig, entry.name, 'sign-out', 'a person (mcp-hangar auth --logout)')}\n`);
		return 0;
	}

	if (launch.auth.grant === 'client_credentials') {
		const via = 'a person (mcp-hangar auth, client-credentials grant)';
		audit(via, 'started', 'sign-in started: getting a token with the client-credentials grant');
		try {
			const machine = await signInAsMachine(entry.name, launch.url, launch.auth, launch.headers);
			audit(via, 'signed-in', `got a token from ${machine.issuer} (client-credentials grant)`);
			io.out(`"${entry.name}" is a machine client (client-credentials grant): got a token from ${machine.issuer}; no browser needed, and hangar gets new ones itself\n`);
			io.out(`${await tellSupervisor(hangarConfig, entry.name, 'sign-in', via)}\n`);
			return 0;
		} catch (error) {
			audit(via, 'failed', `getting a token with the client-credentials grant failed: ${errorMessage(error)}`);
			io.err(`mcp-hangar: getting a token for "${entry.name}" with the client-credentials grant failed: ${oneLine(error)}\n`);
			return 1;
		}
	}

	const cannotOpen = options.browser ? noBrowser(process.env) : '--no-browser';
	const via = 'a person (mcp-hangar auth)';
	audit(via, 'started', 'sign-in started: discovering the authorization server, then waiting for the browser');
	// The person gives up (Ctrl-C, or the terminal closes): the trail says so rather than leaving the sign-in open.
	const cancel = (signal: NodeJS.Signals): void => {
		audit(via, 'cancelled', `the person gave up before the browser came back (${signal})`);
		io.err(`mcp-hangar: signing in to "${entry.name}" was cancelled\n`);
		process.exit(130);
	};

	const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
	const settled = (): void => {
		for (const signal of signals) process.off(signal, cancel);
	};

	for (const signal of signals) process.once(signal, cancel);
	try {
		const result = await signIn({
			upstream: entry.name,
			launch,
			timeoutMs: personSignInTimeoutMs,
			present(url) {
				if (cannotOpen === undefined) {
					io.err(`Opening the browser to sign in to "${entry.name}". If it does not open, open this URL:\n  ${url.href}\n`);
					openBrowser(url.href);
				} else {
					io.err(`To sign in to "${entry.name}", open this URL in a browser (${cannotOpen}):\n  ${url.href}\n`);
				}

				io.err('Waiting for the browser to come back (Ctrl-C to give up)...\n');
			},
		});
		settled();
		const expiry = result.expiresAt === undefined ? 'no expiry given' : `access token refreshed before ${new Date(result.expiresAt).toISOString()}`;
		const how = `with ${result.issuer} (client: ${result.client}${result.registered ? ', registered now' : ''}; scope: ${result.scope ?? 'none named'}`;
		audit(via, 'signed-in', `signed in ${how})`);
		io.out(`signed in to "${entry.name}" ${how}; ${expiry})\n`);
		io.out(`${await tellSupervisor(hangarConfig, entry.name, 'sign-in', via)}\n`);
		return 0;
	} catch (error) {
		audit(via, 'failed', `signing in failed: ${errorMessage(error)}`);
		io.err(`mcp-hangar: signing in to "${entry.name}" failed: ${oneLine(error)}\n`);
		return 1;
	} finally {
		settled();
	}
}
