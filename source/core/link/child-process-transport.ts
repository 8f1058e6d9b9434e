/**
 * The SDK `Transport` for a subprocess upstream, spawned by hangar
 * (early-spawn.ts) rather than by the SDK's own spawner so that hangar controls the environment, the
 * process group and stderr. Framing is newline-delimited JSON-RPC, read by
 * the same rule as a client's (message-classifier.ts). Lines on stdout that
 * break it (log lines, half-written JSON) are kept in the upstream's log
 * instead of breaking the connection; hangar never answers them, since an
 * upstream that prints JSON logs would otherwise get errors on its stdin. A
 * stdout line past the limit is dropped with a note in the log. Stderr is
 * captured line by line into the same bounded log (never inherited, so
 * nothing draws over the TUI or pollutes a stdio endpoint); a runaway stderr
 * line is cut into pieces.
 *
 * Each child leads its own process group and carries a tree marker in its
 * environment (process-tree.ts), so a stop reaches its whole tree, including
 * descendants that left the group (`setsid`): close stdin, wait, SIGTERM the
 * tree, wait, SIGKILL the tree. Whatever the child leaves behind when it
 * exits is SIGKILLed at once.
 *
 * A child that still runs but can no longer be talked to is ended the same
 * way, with the reason in its exit (`brokenLink`), so its upstream restarts
 * by the usual policy instead of timing out forever: it closed its stdout
 * (EOF while it lives), it stopped reading its stdin (EPIPE), or it is
 * stopped (SIGSTOP: checked in /proc while a request waits for its answer;
 * a stopped process gets SIGKILL, the one signal it cannot hold back).
 * A spawn that fails (EMFILE at the open-file limit, ENOENT, ...) is reported
 * by `start` with the reason; no error of the child escapes as an exception.
 */
import type {ChildProcess} from 'node:child_process';
import type {JSONRPCMessage, Transport} from '@modelcontextprotocol/client';
import type {StdioLaunch} from '../config/read-config.js';
import {defaults} from '../config/config-schema.js';
import {JsonRpcCode} from '../base/errors.js';
import {answerIdOfEnds, checkJsonRpcLine, isProblem} from '../wire/message-classifier.js';
import {LineSplitter} from '../wire/line-splitter.js';
import {scanAnswerLine} from '../wire/forwarded-result.js';
import {OutputLineSplitter, detached, type LogBuffer} from './log-buffer.js';
import {SpawnError} from './launch-problem.js';
import {registerTree, signalTree, treeOf, unregisterTree} from './process-registry.js';
import {hasProc, isStopped, newTreeMarker, startTimeOf, type TreeRoot} from './process-tree.js';
import {CoalescingWriter} from '../wire/write-coalescer.js';
import {Backlog} from '../wire/backlog.js';
import {spawnUpstream, takeEarly} from './early-spawn.js';
import {SteadyMap} from '../base/steady-collections.js';

/** A send the writer took at once: every such send shares this settled promise. */
const written: Promise<void> = Promise.resolve();

export type ExitInfo = {
	code: number | null;
	signal: string | null;
	at: number;
	/** How hangar ended it, when hangar did; undefined for an exit of its own accord. */
	stoppedBy?: 'stdin-close' | 'SIGTERM' | 'SIGKILL' | undefined;
	/** Why hangar ended a child that still ran: what it did to its pipes, or that it was stopped. */
	brokenLink?: string | undefined;
};

export function describeExit(exit: ExitInfo): string {
	const how = exit.signal === null ? `exited with code ${exit.code ?? 'unknown'}` : `killed by ${exit.signal}`;
	return exit.brokenLink === undefined ? how : `${exit.brokenLink}; hangar ended it (${how})`;
}

/** How long an exiting child may take between closing a pipe and its exit being seen, before the pipe counts as closed on a live process. */
const exitRaceMs = 500;
/** How often a child with requests waiting for answers is checked for being stopped (SIGSTOP). */
const stopCheckMs = 1000;

/** How much of one line of an upstream's output its log keeps. */
const keptBytes = 2000;

export class ChildProcessTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	/**
	 * A line over the limit was discarded as it streamed in; `id` is the id
	 * of the answer it was, when its ends show one. The connection fails
	 * that request at once, instead of letting it wait out its deadline.
	 */
	onOversized?: (id: string | number | undefined, bytes: number) => void;
	/** Told of an answer that breaks the protocol to a request in flight (`"result": null`, ...): its request is failed at once. */
	onMalformedAnswer?: (id: string | number, method: string, answer: Record<string, unknown>, problem: string) => void;

	private child: ChildProcess | undefined;
	private exitInfo: ExitInfo | undefined;
	private readonly exitWaiters: Array<(exit: ExitInfo) => void> = [];
	private closed = false;
	private stopping: 'stdin-close' | 'SIGTERM' | 'SIGKILL' | undefined;
	private writer: CoalescingWriter | undefined;
	private backlog: Backlog | undefined;
	/** This child's tree: every process that carries it in MCP_HANGAR_TREE. */
	private marker = newTreeMarker();
	private root: TreeRoot | undefined;
	/** Set once the child was found unreachable while running (see the module comment). */
	private brokenLink: string | undefined;
	/** Ids of the requests sent and not yet answered, with their methods: while there are any, the child is checked for being stopped. */
	private readonly awaited = new SteadyMap<string | number, string>();
	private stopCheck: NodeJS.Timeout | undefined;

	constructor(
		private readonly launch: StdioLaunch,
		private readonly log: LogBuffer,
		/** The longest line read from the child (hangar.maxUpstreamMessageBytes); longer ones are discarded as they stream in. */
		readonly maxLineBytes: number = defaults.maxUpstreamMessageBytes,
		/** How long each step of ending a child that broke its link waits (stdin close, then SIGTERM). */
		private readonly graceMs = 2000,
		/** Past this many bytes waiting for the child's stdin, its stdout is not read until it reads them (backlog.ts). */
		private readonly backlogLimit?: number,
	) {}

	/** Whether the child's stdout is not read now: it let more than the backlog limit of what hangar sent it pile up unread. */
	get backlogged(): boolean {
		return this.backlog?.backlogged ?? false;
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	get exit(): ExitInfo | undefined {
		return this.exitInfo;
	}

	async start(): Promise<void> {
		if (this.child !== undefined) throw new Error('ChildProcessTransport already started');
		// A child spawned while hangar was still loading (early-spawn.ts) is already booting: take it, with its tree.
		const adopted = takeEarly(this.launch);
		if (adopted !== undefined) {
			this.marker = adopted.marker;
			this.root = treeOf(adopted.child.pid!);
		}

		this.log.spawnedAt = Date.now();
		const child = adopted?.child ?? spawnUpstream(this.launch, this.marker);
		this.child = child;

		const stdout = new LineSplitter(line => this.onStdoutLine(line), {
			maxBytes: this.maxLineBytes,
			policy: 'discard',
			onDiscarded: (prefix, bytes, suffix) => {
				this.log.drop('stdout', 1, bytes);
				this.log.push('hangar', `dropped a stdout line of ${bytes} bytes (the limit is ${this.maxLineBytes} bytes, hangar.maxUpstreamMessageBytes): ${detached(prefix.slice(0, 200))}`);
				const id = answerIdOfEnds(prefix, suffix);
				if (id !== undefined) this.awaited.delete(id);
				this.onOversized?.(id, bytes);
			},
		});
		const stderr = new OutputLineSplitter(
			(text, bytes) => this.log.push('stderr', bytes > keptBytes ? `${text}… (${bytes} bytes)` : text),
			bytes => this.log.admit('stderr', bytes),
			keptBytes,
		);
		child.stdout?.setEncoding('utf8');
		child.stdout?.on('data', (chunk: string) => stdout.write(chunk));
		// Bytes, not text: lines the log does not admit are counted without being decoded.
		child.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
		if (adopted !== undefined) {
			// Paused since it was spawned early (early-spawn.ts): what it wrote meanwhile comes now.
			child.stdout?.resume();
			child.stderr?.resume();
		}

		child.stdin?.on('error', error => {
			// EPIPE after the child died is expected; the exit handler reports the death.
			this.log.push('hangar', `stdin write failed: ${error.message}`);
			this.suspectLink(`stopped reading its stdin (${(error as NodeJS.ErrnoException).code ?? error.message}) while still running`);
		});
		child.stdout?.on('end', () => this.suspectLink('closed its stdout while still running'));
		child.stdout?.on('error', error => this.suspectLink(`broke its stdout (${error.message}) while still running`));
		// Stderr is only a log: losing it loses nothing the upstream's clients need.
		child.stderr?.on('error', error => this.log.push('hangar', `stderr read failed: ${error.message}`));

		let closeTimer: NodeJS.Timeout | undefined;
		const finish = () => {
			if (closeTimer !== undefined) clearTimeout(closeTimer);
			clearInterval(this.stopCheck);
			if (this.closed) return;
			this.closed = true;
			stdout.flush();
			stderr.flush();
			this.onclose?.();
		};

		child.on('exit', (code, signal) => {
			const pid = child.pid;
			if (pid !== undefined) {
				unregisterTree(pid);
				// Reap anything the child left behind: its group, and descendants that left it.
				signalTree(this.root ?? {pid, startTime: undefined}, this.marker, 'SIGKILL');
			}

			this.exitInfo = {code, signal, at: Date.now(), stoppedBy: this.stopping, ...(this.brokenLink === undefined ? {} : {brokenLink: this.brokenLink})};
			for (const waiter of this.exitWaiters.splice(0)) waiter(this.exitInfo);
			// Let stdout drain, but never wait on a grandchild that holds it open.
			closeTimer = setTimeout(finish, 200);
		});
		child.on('close', finish);
		// Every error of the child is handled: one past the spawn (none is expected) is only logged.
		child.on('error', error => {
			if (child.pid !== undefined) this.log.push('hangar', `process error: ${error.message}`);
		});

		if (adopted !== undefined) return;
		await new Promise<void>((resolve, reject) => {
			child.once('spawn', () => {
				if (child.pid !== undefined) {
					registerTree(child.pid, this.marker);
					this.root = treeOf(child.pid);
				}

				resolve();
			});
			child.once('error', error => {
				if (child.pid !== undefined) return;
				this.exitInfo ??= {code: null, signal: null, at: Date.now()};
				reject(new SpawnError(this.launch.command, (error as NodeJS.ErrnoException).code ?? error.message));
				finish();
			});
		});
	}

	private onStdoutLine(line: string): void {
		// An answer to one of hangar's own requests (ids "h…", written first or last) is checked and
		// read without parsing its result, which goes on as text (forwarded-result.ts).
		if (line.length > 16 && (line.lastIndexOf('"h', 24) >= 0 || line.indexOf('"h', line.length - 24) >= 0)) {
			const answer = scanAnswerLine(line);
			if (answer !== undefined) {
				this.awaited.delete(answer.id);
				this.onmessage?.({jsonrpc: '2.0', id: answer.id, result: answer.result} as unknown as JSONRPCMessage);
				return;
			}
		}

		if (line.trim() === '') return;
		// A JSON-RPC message is an object: anything else is garbage without the cost of classifying it.
		const first = line.trimStart()[0];
		const checked = first === '{' || first === '[' ? checkJsonRpcLine(line) : undefined;
		if (checked === undefined || isProblem(checked)) {
			// A broken answer to a request in flight fails it now (the connection says why): no other answer will come.
			const method = checked?.silent === true && checked.id !== null && checked.idText === undefined ? this.awaited.get(checked.id) : undefined;
			const failed = method !== undefined && this.awaited.delete(checked!.id!);
			// Garbage is the upstream's output: it shares its budget, and only the start of a line is kept.
			if (this.log.admit('stdout', line.length)) {
				const why = checked === undefined || checked.code === JsonRpcCode.ParseError ? '' : `: ${checked.message}`;
				this.log.push('stdout', `not JSON-RPC (${failed ? 'its request fails' : 'ignored'}${why}): ${detached(line.slice(0, keptBytes))}${line.length > keptBytes ? `… (${line.length} chars)` : ''}`);
			}

			if (failed) this.onMalformedAnswer?.(checked!.id!, method, parsedAnswer(line), checked!.message);
			return;
		}

		const message = checked.value as JSONRPCMessage;
		if (!('method' in message) && 'id' in message && message.id !== undefined) this.awaited.delete(message.id);
		this.onmessage?.(message);
	}

	/**
	 * A pipe to a child that may still run closed or failed. A child that is
	 * exiting closes its pipes first: only one whose exit is not seen soon
	 * after has broken the link.
	 */
	private suspectLink(why: string): void {
		if (this.exitInfo !== undefined || this.stopping !== undefined || this.closed) return;
		const check = (): void => {
			const pid = this.pid;
			// A zombie has exited already: its exit event is only late (a loaded machine). Look again.
			if (hasProc && pid !== undefined && this.exitInfo === undefined && startTimeOf(pid) === undefined) setTimeout(check, exitRaceMs).unref();
			else this.breakLink(why, 'stop');
		};

		setTimeout(check, exitRaceMs).unref();
	}

	/** Ends a child that runs but cannot be talked to, recording why: its upstream sees an exit and restarts by its policy. */
	private breakLink(why: string, how: 'stop' | 'kill'): void {
		if (this.exitInfo !== undefined || this.stopping !== undefined || this.closed || this.brokenLink !== undefined) return;
		this.brokenLink = why;
		this.log.push('hangar', `the process (pid ${this.pid ?? '?'}) ${why}: hangar can no longer talk to it and ends it`);
		if (how === 'stop') {
			void this.stop(this.graceMs);
			return;
		}

		this.stopping = 'SIGKILL';
		this.signalGroup(this.pid, 'SIGKILL');
	}

	/** While requests wait for answers, looks every stopCheckMs whether the child is stopped (it would never answer). */
	private watchForStop(): void {
		if (this.stopCheck !== undefined || !hasProc) return;
		this.stopCheck = setInterval(() => {
			const pid = this.pid;
			if (this.awaited.size === 0 || this.closed || pid === undefined) {
				clearInterval(this.stopCheck);
				this.stopCheck = undefined;
			} else if (isStopped(pid)) {
				this.breakLink('is stopped (SIGSTOP) with requests waiting for answers', 'kill');
			}
		}, stopCheckMs);
		this.stopCheck.unref();
	}

	/** Not async: the writer's promise is the send's, without a layer around it on every call. */
	send(message: JSONRPCMessage): Promise<void> {
		const stdin = this.child?.stdin;
		if (stdin === undefined || stdin === null || stdin.destroyed || !stdin.writable || this.closed) {
			return Promise.reject(new Error('upstream process is not running'));
		}

		if ('method' in message) {
			if ('id' in message) {
				this.awaited.set(message.id, message.method);
				this.watchForStop();
			} else if (message.method === 'notifications/cancelled') {
				this.awaited.delete((message.params as {requestId?: string | number} | undefined)?.requestId ?? '');
			}
		}

		let line: string;
		try {
			line = `${JSON.stringify(message)}\n`;
		} catch (error) {
			return Promise.reject(error);
		}

		// An upstream that does not read what it is sent is not read either: what it asks (a flood of pings, say)
		// cannot pile hangar's answers up in memory. Its calls then time out as a hung upstream's do.
		this.backlog ??= new Backlog(stdin, backlogged => (backlogged ? this.child?.stdout?.pause() : this.child?.stdout?.resume()), this.backlogLimit);
		this.writer ??= new CoalescingWriter(stdin, {backlog: this.backlog});
		// The writer returns a promise only while the pipe holds writes back (write-coalescer.ts).
		return this.writer.write(line) ?? written;
	}

	/** Stops the child in order (stdin close, SIGTERM, SIGKILL to the group) and resolves with how it exited. */
	async stop(graceMs: number): Promise<ExitInfo> {
		const child = this.child;
		if (child === undefined) return {code: null, signal: null, at: Date.now()};
		if (this.exitInfo !== undefined) return this.exitInfo;
		const pid = child.pid;

		this.stopping = 'stdin-close';
		this.writer?.flush();
		child.stdin?.end();
		let exit = await this.waitForExit(graceMs);
		if (exit !== undefined) return exit;

		this.stopping = 'SIGTERM';
		this.signalGroup(pid, 'SIGTERM');
		exit = await this.waitForExit(graceMs);
		if (exit !== undefined) return exit;

		this.stopping = 'SIGKILL';
		this.signalGroup(pid, 'SIGKILL');
		exit = await this.waitForExit(5000);
		return exit ?? {code: null, signal: 'SIGKILL', at: Date.now(), stoppedBy: 'SIGKILL'};
	}

	async close(): Promise<void> {
		await this.stop(2000);
	}

	private signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
		if (pid === undefined) return;
		signalTree(this.root ?? {pid, startTime: undefined}, this.marker, signal);
	}

	private async waitForExit(ms: number): Promise<ExitInfo | undefined> {
		if (this.exitInfo !== undefined) return this.exitInfo;
		return new Promise(resolve => {
			const timer = setTimeout(() => {
				const index = this.exitWaiters.indexOf(done);
				if (index !== -1) this.exitWaiters.splice(index, 1);
				resolve(undefined);
			}, ms);
			const done = (exit: ExitInfo) => {
				clearTimeout(timer);
				resolve(exit);
			};

			this.exitWaiters.push(done);
		});
	}
}

/** A malformed answer's object, for what says what was wrong with it (a BOM before it, as the rule allows; {} if it is not one). */
function parsedAnswer(line: string): Record<string, unknown> {
	try {
		const value: unknown = JSON.parse(line.trimStart().replace(/^\uFEFF/, ''));
		return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
	} catch {
		return {};
	}
}
