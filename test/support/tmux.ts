/**
 * Test support: a program in a real pseudo-terminal, through a private tmux
 * server (`tmux -L <socket>`): start it at a given size, send keys, read the
 * screen as text, and learn when and how it exited.
 */
import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {tempDir, waitFor} from './hangar.js';

export type TmuxOptions = {columns?: number; rows?: number; env?: Record<string, string>; cwd?: string};

const quote = (part: string): string => `'${part.replaceAll("'", "'\\''")}'`;

export class TmuxSession {
	readonly socket = `hangar-test-${randomUUID().slice(0, 8)}`;
	readonly target = 'tui';
	/**
	 * The program's exit status is written here by the shell that runs it.
	 * tmux's own #{pane_dead_status} is not reliable: tmux 3.3 can miss the
	 * SIGCHLD of a program that closes its terminal just before exiting, and
	 * then never reaps it.
	 */
	private readonly statusFile = path.join(tempDir('hangar-tmux-'), 'status');

	/** Runs `command` (argv) in a new detached session; the pane stays after it exits, so its last screen can be read. */
	start(command: readonly string[], options: TmuxOptions = {}): void {
		const env = Object.entries(options.env ?? {}).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
		this.tmux(
			'-f', '/dev/null',
			'start-server', ';',
			'set-option', '-g', 'remain-on-exit', 'on', ';',
			'new-session', '-d', '-s', this.target, '-x', String(options.columns ?? 140), '-y', String(options.rows ?? 40),
			...(options.cwd === undefined ? [] : ['-c', options.cwd]),
			...env,
			`${command.map(quote).join(' ')}; echo $? > ${quote(this.statusFile)}`,
		);
	}

	/** The visible screen as text, one line per row, trailing blanks trimmed; with `history`, the lines scrolled off above it too. */
	screen(options: {history?: boolean} = {}): string {
		return this.tmux('capture-pane', '-p', ...(options.history === true ? ['-S', '-'] : []), '-t', this.target)
			.split('\n')
			.map(line => line.trimEnd())
			.join('\n')
			.trimEnd();
	}

	/** Sends keys by tmux name (Enter, Escape, Up, C-c). */
	keys(...keys: string[]): void {
		this.tmux('send-keys', '-t', this.target, ...keys);
	}

	/** Types text literally. */
	type(text: string): void {
		this.tmux('send-keys', '-t', this.target, '-l', text);
	}

	resize(columns: number, rows: number): void {
		this.tmux('resize-window', '-t', this.target, '-x', String(columns), '-y', String(rows));
	}

	/** Waits until the screen matches, and returns it; on timeout the error shows the screen. */
	async waitForScreen(test: string | RegExp | ((screen: string) => boolean), what = String(test), timeoutMs = 30_000): Promise<string> {
		const matches = (screen: string): boolean =>
			typeof test === 'string' ? screen.includes(test) : test instanceof RegExp ? test.test(screen) : test(screen);
		try {
			return await waitFor(() => {
				const screen = this.screen();
				return matches(screen) ? screen : undefined;
			}, what, timeoutMs, 50);
		} catch (error) {
			throw new Error(`${(error as Error).message}; the screen shows:\n${this.screen()}`);
		}
	}

	/** The program's exit status once it has exited, else undefined. */
	exitStatus(): number | undefined {
		try {
			const text = fs.readFileSync(this.statusFile, 'utf8').trim();
			return text === '' ? undefined : Number(text);
		} catch {
			return undefined;
		}
	}

	/** Kills the tmux server and everything in it; safe to call twice. */
	kill(): void {
		try {
			this.tmux('kill-server');
		} catch {}

		fs.rmSync(path.dirname(this.statusFile), {recursive: true, force: true});
	}

	private tmux(...args: string[]): string {
		return execFileSync('tmux', ['-L', this.socket, ...args], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
	}
}
