/**
 * A terminal UI's line to a supervisor that another process owns: one
 * connection on the local socket, over which it reads console snapshots
 * (gateway/console.ts), hears when to read again, and sends a person's
 * commands through `hangar/command`. It says once, with a sentence, when the
 * connection is gone: the owner exited, crashed or began to drain. Finding
 * the next owner is the caller's business (see components/remote-source.ts).
 */
import {z} from 'zod';
import type {HangarConfig} from '../config/read-config.js';
import type {ConsoleAnswer, ConsoleParams} from '../gateway/console.js';
import {consoleChangedNotification, consoleMethod} from '../wire/protocol.js';
import {drainingNotification} from '../wire/protocol.js';
import type {PersonAction} from '../engine/supervisor.js';
import type {SignInStart} from '../engine/sign-in-start.js';
import type {EndpointOwner} from './socket-client.js';
import {SupervisorClient, ownerLabel} from './supervisor-client.js';

/** What a console needs of its supervisor; `ConsoleClient` is the one over the socket. */
export type ConsoleLink = {
	/** Who owns the supervisor, for the header: "hangar pid 123 (mcp-hangar serve)". */
	readonly owner: string;
	read: (params: ConsoleParams) => Promise<ConsoleAnswer>;
	act: (name: string, action: PersonAction) => Promise<string>;
	/** Starts a person's sign-in in the supervisor's process: the URL to open. */
	startSignIn: (name: string) => Promise<SignInStart>;
	/** Called when the supervisor says the snapshot may have changed. */
	onChanged: (listener: () => void) => void;
	/** Called once when the link is gone, with why; it never comes back (connect a new one). */
	onLost: (listener: (why: string) => void) => void;
	close: () => Promise<void>;
};

/** Why `connect` found nothing to attach to, when nothing answers at all (as opposed to a socket that cannot be used). */
export const noSupervisor = 'no supervisor runs for this config';

/** The name an attached TUI gives in initialize (the owner's clients view lists it as a console). */
export const consoleClientName = 'mcp-hangar-tui';

// The supervisor's own answer: checked for shape only, as it comes from the same build.
const consoleAnswerSchema = z.looseObject({
	snapshot: z.looseObject({configPath: z.string(), entries: z.array(z.unknown()), clients: z.array(z.unknown())}),
	approvals: z.record(z.string(), z.unknown()),
	logsHeldFrom: z.number().optional(),
});

export class ConsoleClient implements ConsoleLink {
	private lostListener: ((why: string) => void) | undefined;
	private changedListener: (() => void) | undefined;
	private lost: string | undefined;
	private closing = false;

	private constructor(
		private readonly client: SupervisorClient,
		readonly owner: string,
		/** Who sends commands, for transition reasons and the owner's log. */
		private readonly via: string,
	) {
		client.onNotification(method => {
			if (method === consoleChangedNotification) this.changedListener?.();
			// The owner is about to stop: let go now (it waits for its connections to end) and look for the next one.
			else if (method === drainingNotification) this.gone(`${owner} stopped`);
		});
		client.onClose(() => this.gone(`${owner} went away (the connection closed)`));
	}

	/**
	 * Connects to the supervisor serving `config` (same state dir, same config
	 * file); resolves with why not when none can be used.
	 */
	static async connect(config: Pick<HangarConfig, 'path'> & {hangar: Pick<HangarConfig['hangar'], 'stateDir'>}, via: string): Promise<ConsoleClient | string> {
		let why: string | undefined;
		const client = await SupervisorClient.connect(config, consoleClientName, reason => {
			why = reason;
		});
		if (client === undefined) return why ?? noSupervisor;
		return new ConsoleClient(client, ownerLabel(client.owner, client.socket), via);
	}

	/** Who owns the supervisor (its pid, kind and config), as its endpoint.json said when connecting. */
	get endpoint(): EndpointOwner | undefined {
		return this.client.owner;
	}

	onChanged(listener: () => void): void {
		this.changedListener = listener;
	}

	onLost(listener: (why: string) => void): void {
		this.lostListener = listener;
		if (this.lost !== undefined) listener(this.lost);
	}

	async read(params: ConsoleParams): Promise<ConsoleAnswer> {
		// Fields that were undefined are absent after JSON: the same to a reader of the type.
		return (await this.client.request(consoleMethod, {...params}, consoleAnswerSchema)) as unknown as ConsoleAnswer;
	}

	async act(name: string, action: PersonAction): Promise<string> {
		return this.client.act(name, action, this.via);
	}

	/** Asks the supervisor to stop, naming this console's person (mcp-hangar shutdown); rejects when it does not serve that (then signal it). */
	async shutdown(): Promise<void> {
		await this.client.shutdown(this.via);
	}

	async startSignIn(name: string): Promise<SignInStart> {
		return this.client.startSignIn(name, this.via);
	}

	async close(): Promise<void> {
		this.closing = true;
		await this.client.close().catch(() => {});
	}

	private gone(why: string): void {
		if (this.lost !== undefined || this.closing) return;
		this.lost = why;
		void this.client.close().catch(() => {});
		this.lostListener?.(why);
	}
}
