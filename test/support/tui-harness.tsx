/**
 * The harness of the terminal UI's component tests: a fake `HangarSource`
 * made of StatusEntry / UpstreamDetails values stands in for the supervisor,
 * which the screens never see, and `open` renders the whole TUI with
 * ink-testing-library, with helpers to wait for what the screen shows and
 * to press keys.
 */
import {render} from 'ink-testing-library';
import {HangarTui} from '../../source/tui/components/HangarTui.js';
import type {Focus, HangarSnapshot, HangarSource} from '../../source/tui/components/hangar-source.js';
import type {TerminalSize} from '../../source/tui/components/tui-context.js';
import type {ClientView} from '../../source/core/engine/clients/clients.js';
import type {PersonAction} from '../../source/core/engine/supervisor.js';
import type {SignInStart} from '../../source/core/engine/sign-in-start.js';
import type {LogLine} from '../../source/core/link/log-buffer.js';
import type {StatusEntry, UpstreamDetails} from '../../source/core/views/views.js';
import {CallLog} from '../../source/core/engine/call-log.js';
import {callsWindow} from '../../source/core/views/console-view.js';
import {waitFor} from './hangar.js';

export const now = Date.parse('2026-11-22T10:00:00Z');
export const at = (secondsAgo: number): string => new Date(now - secondsAgo * 1000).toISOString();

export function entry(name: string, overrides: Partial<StatusEntry> = {}): StatusEntry {
	return {
		name,
		state: 'ready',
		admin: 'enabled',
		ready: true,
		callable: true,
		stale: false,
		breaker: 'closed',
		pid: 4000 + name.length,
		transport: 'stdio',
		tools: 3,
		toolsSource: 'live',
		calls: 12,
		failures: 0,
		consecutiveFailures: 0,
		toolErrors: 0,
		inFlight: 0,
		latencyMs: {p50: 3.2, p95: 41},
		lastError: null,
		lastVerifiedAt: at(60),
		nextRetryAt: null,
		stateSince: at(60),
		upSeconds: 60,
		idleSeconds: 5,
		restarts: 0,
		quarantineReason: null,
		era: {era: null, protocolVersion: null, learnedAt: null},
		contextTokens: 0,
		...overrides,
	};
}

export function detailsOf(server: StatusEntry): UpstreamDetails {
	return {
		server,
		launch: `node ${server.name}-server.js --stdio`,
		tools: [
			{name: 'search_docs', exposedName: `${server.name}__search_docs`, title: null, description: 'Search the docs', inputSchema: {type: 'object'}, outputSchema: null, annotations: null, calls: 9, failures: 1, latencyMs: {p50: 4, p95: 30}, pinned: false, tokens: 60, history: null},
			{name: 'echo', exposedName: `${server.name}__echo`, title: null, description: null, inputSchema: {type: 'object'}, outputSchema: null, annotations: null, calls: 3, failures: 0, latencyMs: {p50: 1, p95: 2}, pinned: true, tokens: 20, history: null},
		],
		transitions: [
			{at: at(70), from: 'cold', to: 'starting', event: 'start', reason: 'lazy is false: started at launch'},
			{at: at(60), from: 'starting', to: 'ready', event: 'started', reason: 'started in 300 ms (pid 4001, 2 tools)'},
		],
		recentCalls: [
			{at: at(30), tool: 'search_docs', ms: 4.2, ok: true, error: null},
			{at: at(20), tool: 'search_docs', ms: 120, ok: false, error: 'call timed out after 10 s'},
		],
		history: {end: now, bucketMs: 5000, calls: new Array<number>(60).fill(0), failures: new Array<number>(60).fill(0), p95: new Array<number | null>(60).fill(null)},
		recentErrors: [],
		stderr: [{at: at(65), source: 'stderr', text: 'listening on stdio'}],
		droppedOutput: {stderr: {lines: 0, bytes: 0}, stdout: {lines: 0, bytes: 0}},
		quarantine: null,
		pins: null,
		capabilities: {tools: {}},
		catalogSource: 'live',
		catalogVerifiedAt: at(60),
		resources: [],
		resourceTemplates: [],
		prompts: [],
		clashes: [],
		reloads: [],
		filteredTools: [],
		invalid: null,
	};
}

export function client(id: number, overrides: Partial<ClientView> = {}): ClientView {
	return {
		id,
		transport: 'socket',
		label: `socket#${id}`,
		name: 'e2e-client',
		version: '1.2.0',
		protocolVersion: '2025-11-25',
		connectedAt: now - 300_000,
		calls: 0,
		lastCallAt: null,
		lastTool: null,
		lastSeenAt: now - 1000,
		...overrides,
	};
}

export type CommandCall = {name: string; action: PersonAction};

export class FakeSource implements HangarSource {
	entries: StatusEntry[];
	clients: ClientView[] = [];
	notice: string | undefined;
	configPath = '/home/me/.config/mcp-hangar/config.json';
	/** Set to read as a TUI attached to another process's supervisor. */
	owner: string | undefined;
	logs: Record<string, LogLine[]> = {};
	/** How many lines each upstream's bounded buffer has dropped from its front. */
	logsDropped: Record<string, number> = {};
	readonly commands: CommandCall[] = [];
	reads = 0;
	/** Added to every upstream's details (e.g. prompts, resources, clashes). */
	moreDetails: Partial<UpstreamDetails> = {};
	answer: (call: CommandCall) => Promise<string> = async call => `${call.action} done on "${call.name}"`;
	private readonly listeners = new Set<() => void>();

	/** Per-upstream history for the table's sparklines (wide terminals). */
	history: HangarSnapshot['history'] = {};
	context: HangarSnapshot['context'] = {exposure: 'direct', current: 1200, direct: 1200, search: 400};
	/** A real calls log (bounded, masked), fed by the tests. */
	calls = new CallLog(20);

	/** The config's state the header reads: drift from the file on disk, the last reload. */
	config: HangarSnapshot['config'] = {drift: null, lastReload: null};
	/** Set to read as a screen whose supervisor went away. */
	stale: HangarSnapshot['stale'];

	constructor(entries: StatusEntry[]) {
		this.entries = entries;
	}

	read(focus: Focus): HangarSnapshot {
		this.reads += 1;
		const focused = focus !== undefined && 'name' in focus ? this.entries.find(candidate => candidate.name === focus.name) : undefined;
		return {
			configPath: this.configPath,
			logFile: '/home/me/.local/state/mcp-hangar/hangar.log',
			startedAt: now - 3725_000,
			now,
			clients: this.clients,
			notice: this.notice,
			...(this.owner === undefined ? {} : {owner: this.owner}),
			...(this.stale === undefined ? {} : {stale: this.stale}),
			entries: this.entries,
			toolNames: Object.fromEntries(this.entries.map(candidate => [candidate.name, candidate.name === 'alpha' ? ['search_docs', 'echo'] : ['echo']])),
			details: focused !== undefined && focus?.want === 'details' ? {...detailsOf(focused), ...this.moreDetails} : undefined,
			logs: focused !== undefined && focus?.want === 'logs' ? {lines: this.logs[focused.name] ?? [], first: this.logsDropped[focused.name] ?? 0} : undefined,
			config: this.config,
			history: this.history,
			context: this.context,
			...(focus?.want === 'calls' ? {calls: callsWindow(this.calls, focus)} : {}),
		};
	}

	subscribe(_focus: Focus, listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The live count, which may differ from the last snapshot's (see `staleClients`). */
	attachedClients(): number {
		return this.clients.filter(candidate => candidate.idle !== true && candidate.console !== true).length;
	}

	approvalPins(name: string): string {
		return `its ${this.entries.find(candidate => candidate.name === name)?.tools ?? 0} tools as last listed (2026-11-22T08:00:00.000Z)`;
	}

	async act(name: string, action: PersonAction): Promise<string> {
		const call = {name, action};
		this.commands.push(call);
		return this.answer(call);
	}

	/** The upstreams a sign-in was started for, and what the supervisor answers. */
	readonly signIns: string[] = [];
	signInAnswer: (name: string) => Promise<SignInStart> = async name => ({upstream: name, url: `https://auth.example/authorize?client_id=hangar&state=s1&redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback&z=${'x'.repeat(120)}end`, startedAt: '2026-11-22T08:00:00.000Z', browser: {opened: false, why: 'there is no display'}});

	async startSignIn(name: string): Promise<SignInStart> {
		this.signIns.push(name);
		return this.signInAnswer(name);
	}

	/** Changes the data and fires a change event, as the supervisor would. */
	change(update: (source: this) => void): void {
		update(this);
		for (const listener of this.listeners) listener();
	}
}

export const threeUpstreams = (): StatusEntry[] => [
	entry('alpha', {calls: 1234, latencyMs: {p50: 3.2, p95: 41}}),
	entry('beta', {state: 'cold', ready: false, pid: null, upSeconds: null, idleSeconds: null, latencyMs: {p50: null, p95: null}, calls: 0}),
	entry('gamma', {
		state: 'dead',
		ready: false,
		pid: null,
		breaker: 'open',
		upSeconds: null,
		idleSeconds: null,
		failures: 7,
		consecutiveFailures: 3,
		restarts: 4,
		lastError: 'upstream "gamma": start failed: the process exited with code 4 during initialize. Fix the cause and start it again.',
		nextRetryAt: new Date(now + 4000).toISOString(),
	}),
];

// eslint-disable-next-line no-control-regex
export const ansi = /\u001B\[[0-9;]*m/g;

export type OpenOptions = {
	onQuit?: () => void;
	onForceQuit?: () => void;
	messageMs?: number;
	/** The renderer's cost of the last frame, as Ink would report it (default: not asked). */
	outputMs?: () => number;
};

export function open(source: FakeSource, size: TerminalSize = {columns: 140, rows: 30}, options: OpenOptions = {}) {
	const {outputMs, ...props} = options;
	const timing = outputMs === undefined ? {frameMs: 10, tickMs: 60_000} : {frameMs: 10, tickMs: 60_000, outputMs};
	const instance = render(<HangarTui source={source} size={size} timing={timing} {...props} />);
	/** The terminal resized: the same TUI drawn at `size`. */
	const resize = (to: TerminalSize): void => {
		instance.rerender(<HangarTui source={source} size={to} timing={timing} {...props} />);
	};

	const frame = (): string => (instance.lastFrame() ?? '').replace(ansi, '');
	const lines = (): string[] => frame().split('\n');
	const withScreen = async <T,>(waiting: Promise<T>): Promise<T> =>
		waiting.catch((error: unknown) => {
			throw new Error(`${(error as Error).message}; the screen shows:\n${frame()}`);
		});
	const see = async (text: string | RegExp): Promise<string> =>
		withScreen(
			waitFor(() => {
				const current = frame();
				return (typeof text === 'string' ? current.includes(text) : text.test(current)) ? current : undefined;
			}, `the screen to show ${String(text)}`, 10_000),
		);
	const gone = async (text: string): Promise<void> => {
		await withScreen(waitFor(() => !frame().includes(text), `"${text}" to disappear`, 10_000));
	};

	/** Each argument is one read from the terminal: 'jj' is two keys arriving together. */
	const press = async (...keys: string[]): Promise<void> => {
		// Keys are read once Ink has put stdin in raw mode (after the first render's effects).
		await waitFor(() => instance.stdin.listenerCount('readable') > 0, 'Ink to listen for keys', 10_000);
		for (const key of keys) instance.stdin.write(key);
	};

	return {...instance, frame, lines, see, gone, press, resize};
}

export const keys = {up: '\u001B[A', down: '\u001B[B', pageDown: '\u001B[6~', enter: '\r', escape: '\u001B', ctrlC: '\u0003', backspace: '\u007F'};

/** The line of the table that holds `name`. */
export function rowOf(lines: string[], name: string): string {
	const line = lines.find(candidate => candidate.slice(2).startsWith(`${name} `));
	if (line === undefined) throw new Error(`no row for ${name} in:\n${lines.join('\n')}`);
	return line;
}
