/**
 * A console on the local socket: a terminal UI attached to a supervisor that
 * another process owns. It reads the same snapshot the owner's own TUI reads
 * in-process (views/console-view.ts) with the private `hangar/console`
 * request, and is told when to read again by a private notification. Only
 * sessions on the local socket serve it: the `--stdio` bridge never forwards
 * a `hangar/` request from an MCP client, and HTTP sessions do not offer it.
 *
 * Flow control: after each read, the first change arms one
 * `notifications/hangar/console/changed`, sent no sooner than `minIntervalMs`
 * after the previous one; the next is armed only by the next read. However
 * busy the supervisor (thousands of calls a second), a console gets at most
 * ten notifications a second, and never more than it reads.
 */
import {JsonRpcCode, JsonRpcError} from '../base/errors.js';
import {isPlainObject} from '../wire/message-classifier.js';
import {consoleMethod} from '../wire/protocol.js';
import {consoleSnapshot, quarantinedApprovalPlans, watchConsole, type ConsoleSnapshot, type Focus} from '../views/console-view.js';
import type {Supervisor} from '../engine/supervisor.js';
import type {ApprovalPlan} from '../engine/upstream/tool-list.js';


export type ConsoleParams = {
	focus: Focus;
	/**
	 * With a focus on logs: the number of the first log line the console does
	 * not hold yet. When the buffer still holds the lines from there on, only
	 * those are sent (a log view at ten frames a second would otherwise get
	 * the whole buffer ten times a second).
	 */
	logsAfter?: number | undefined;
};

export type ConsoleAnswer = {
	snapshot: ConsoleSnapshot;
	/** What approving each quarantined upstream would pin (see quarantinedApprovalPlans). */
	approvals: Record<string, ApprovalPlan>;
	/**
	 * Set when `snapshot.logs` holds only the lines from `logsAfter` on: the
	 * number of the first line the buffer still holds. The console keeps the
	 * lines it has from there on and appends the new ones.
	 */
	logsHeldFrom?: number;
};

const wants = new Set(['details', 'logs']);

/** The params of a `hangar/console` request; throws an InvalidParams error that says what is expected. */
export function parseConsoleParams(params: unknown): ConsoleParams {
	const invalid = (why: string): JsonRpcError =>
		new JsonRpcError(
			JsonRpcCode.InvalidParams,
			`Invalid params for "${consoleMethod}": ${why}; expected {"focus"?: {"name": string, "want": "details" | "logs"} | {"want": "clients"} | {"want": "calls", "filter"?: string, "at"?: number, "open"?: number, "limit"?: number}, "logsAfter"?: number}`,
		);
	if (params !== undefined && !isPlainObject(params)) throw invalid('params must be an object');
	const record: Record<string, unknown> = params ?? {};
	const focus = record['focus'];
	const logsAfter = record['logsAfter'];
	if (logsAfter !== undefined && (typeof logsAfter !== 'number' || !Number.isInteger(logsAfter) || logsAfter < 0)) throw invalid('"logsAfter" must be a whole number ≥ 0');
	if (focus === undefined || focus === null) return {focus: undefined, logsAfter};
	if (!isPlainObject(focus)) throw invalid('"focus" must be an object');
	if (focus['want'] === 'clients') return {focus: {want: 'clients'}, logsAfter};
	if (focus['want'] === 'calls') {
		const whole = (key: string): number | undefined => {
			const value = focus[key];
			if (value === undefined || value === null) return undefined;
			if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalid(`"focus.${key}" must be a whole number ≥ 0`);
			return value;
		};

		const filter = focus['filter'];
		if (filter !== undefined && filter !== null && typeof filter !== 'string') throw invalid('"focus.filter" must be a string');
		return {focus: {want: 'calls', filter: filter ?? undefined, at: whole('at'), open: whole('open'), limit: whole('limit')}, logsAfter};
	}

	if (typeof focus['name'] !== 'string' || !wants.has(focus['want'] as string)) throw invalid('"focus" must name an upstream and want "details" or "logs", or want "clients" or "calls"');
	return {focus: {name: focus['name'], want: focus['want'] as 'details' | 'logs'}, logsAfter};
}

/** The answer to a read: the snapshot, with only the log lines from `logsAfter` on when the buffer still holds them. */
export function consoleAnswer(supervisor: Supervisor, params: ConsoleParams): ConsoleAnswer {
	const snapshot = consoleSnapshot(supervisor, params.focus);
	const answer: ConsoleAnswer = {snapshot, approvals: quarantinedApprovalPlans(supervisor)};
	const {logs} = snapshot;
	const after = params.logsAfter;
	if (logs !== undefined && after !== undefined && after >= logs.first && after <= logs.first + logs.lines.length) {
		answer.snapshot = {...snapshot, logs: {lines: logs.lines.slice(after - logs.first), first: after}};
		answer.logsHeldFrom = logs.first;
	}

	return answer;
}

/**
 * One session's console: answers its reads and sends it the changed
 * notification (see the flow control above). The session calls `close`
 * when it closes.
 */
export class ConsoleChannel {
	private focusKey: string | undefined;
	private unwatch: (() => void) | undefined;
	private armed = false;
	private timer: NodeJS.Timeout | undefined;
	private lastSentAt = -Infinity;
	private closed = false;

	constructor(
		private readonly supervisor: Supervisor,
		private readonly notify: () => void,
		private readonly minIntervalMs = 100,
	) {}

	read(params: ConsoleParams): ConsoleAnswer {
		const key = JSON.stringify(params.focus ?? null);
		if (key !== this.focusKey && !this.closed) {
			// The log of the focused upstream is watched too: a new focus watches anew.
			this.unwatch?.();
			this.focusKey = key;
			this.unwatch = watchConsole(this.supervisor, params.focus, () => this.changed());
		}

		const answer = consoleAnswer(this.supervisor, params);
		this.armed = true;
		return answer;
	}

	close(): void {
		this.closed = true;
		this.unwatch?.();
		this.unwatch = undefined;
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
	}

	private changed(): void {
		if (!this.armed || this.timer !== undefined || this.closed) return;
		const wait = Math.max(0, this.lastSentAt + this.minIntervalMs - performance.now());
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.armed = false;
			this.lastSentAt = performance.now();
			this.notify();
		}, wait);
	}
}
