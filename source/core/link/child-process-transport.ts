/**
 * The SDK `Transport` for a subprocess upstream, spawned with execa rather
 * than the SDK's own spawner so that hangar controls the environment, the
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
 */
import type {ResultPromise} from 'execa';
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import type {JSONRPCMessage} from '@modelcontextprotocol/sdk/types.js';
import type {StdioLaunch} from '../config/read-config.js';
import {JsonRpcCode} from '../base/errors.js';
import {checkJsonRpcLine, isProblem} from '../wire/message-classifier.js';
import {LineSplitter} from '../wire/line-splitter.js';
import {OutputLineSplitter, detached, type LogBuffer} from './log-buffer.js';
import {SpawnError} from './launch-problem.js';
import {registerTree, signalTree, treeOf, unregisterTree} from './process-registry.js';
import {newTreeMarker, type TreeRoot} from './process-tree.js';
import {CoalescingWriter} from '../wire/write-coalescer.js';
import {spawnUpstream, takeEarly} from './early-spawn.js';

export type ExitInfo = {
	code: number | null;
	signal: string | null;
	at: number;
	/** How hangar ended it, when hangar did; undefined for an exit of its own accord. */
	stoppedBy?: 'stdin-close' | 'SIGTERM' | 'SIGKILL' | undefined;
};

export function describeExit(exit: ExitInfo): string {
	if (exit.signal !== null) return `killed by ${exit.signal}`;
	return `exited with code ${exit.code ?? 'unknown'}`;
}

/** How much of one line of an upstream's output its log keeps. */
const keptBytes = 2000;

export class ChildProcessTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;

	private child: ResultPromise | undefined;
	private exitInfo: ExitInfo | undefined;
	private readonly exitWaiters: Array<(exit: ExitInfo) => void> = [];
	private closed = false;
	private stopping: 'stdin-close' | 'SIGTERM' | 'SIGKILL' | undefined;
	private writer: CoalescingWriter | undefined;
	/** This child's tree: every process that carries it in MCP_HANGAR_TREE. */
	private marker = newTreeMarker();
	private root: TreeRoot | undefined;

	constructor(
		private readonly launch: StdioLaunch,
		private readonly log: LogBuffer,
		private readonly maxLineBytes = 64 * 1024 * 1024,
	) {}

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

		const child = adopted?.child ?? spawnUpstream(this.launch, this.marker);
		this.child = child;

		const stdout = new LineSplitter(line => this.onStdoutLine(line), {
			maxBytes: this.maxLineBytes,
			policy: 'discard',
			onDiscarded: (prefix, bytes) => {
				this.log.drop('stdout', 1, bytes);
				this.log.push('hangar', `dropped a stdout line of ${bytes} bytes (the limit is ${this.maxLineBytes}): ${detached(prefix.slice(0, 200))}`);
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
		});

		let closeTimer: NodeJS.Timeout | undefined;
		const finish = () => {
			if (closeTimer !== undefined) clearTimeout(closeTimer);
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

			this.exitInfo = {code, signal, at: Date.now(), stoppedBy: this.stopping};
			for (const waiter of this.exitWaiters.splice(0)) waiter(this.exitInfo);
			// Let stdout drain, but never wait on a grandchild that holds it open.
			closeTimer = setTimeout(finish, 200);
		});
		child.on('close', finish);

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
				this.exitInfo ??= {code: null, signal: null, at: Date.now()};
				reject(new SpawnError(this.launch.command, (error as NodeJS.ErrnoException).code ?? error.message));
				finish();
			});
		});
	}

	private onStdoutLine(line: string): void {
		if (line.trim() === '') return;
		// A JSON-RPC message is an object: anything else is garbage without the cost of classifying it.
		const first = line.trimStart()[0];
		const checked = first === '{' || first === '[' ? checkJsonRpcLine(line) : undefined;
		if (checked === undefined || isProblem(checked)) {
			// Garbage is the upstream's output: it shares its budget, and only the start of a line is kept.
			if (this.log.admit('stdout', line.length)) {
				const why = checked === undefined || checked.code === JsonRpcCode.ParseError ? '' : `: ${checked.message}`;
				this.log.push('stdout', `not JSON-RPC (ignored${why}): ${detached(line.slice(0, keptBytes))}${line.length > keptBytes ? `… (${line.length} chars)` : ''}`);
			}

			return;
		}

		this.onmessage?.(checked.value as JSONRPCMessage);
	}

	async send(message: JSONRPCMessage): Promise<void> {
		const stdin = this.child?.stdin;
		if (stdin === undefined || stdin === null || stdin.destroyed || !stdin.writable || this.closed) {
			throw new Error('upstream process is not running');
		}

		this.writer ??= new CoalescingWriter(stdin);
		await this.writer.write(`${JSON.stringify(message)}\n`);
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
