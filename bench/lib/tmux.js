/**
 * A program in a real pseudo-terminal, through a private tmux server
 * (`tmux -L <socket>`): start it at a given size, send keys, read the screen
 * as text, and learn when and how it exited. Shared by the TUI's end-to-end
 * tests (test/support/tmux.ts) and the TUI CPU scenario, so both drive the
 * terminal the same way.
 */
import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {tempDir, waitFor} from './paths.js';

/**
 * @typedef {object} TmuxOptions
 * @property {number} [columns] The terminal's width (default 140).
 * @property {number} [rows] The terminal's height (default 40).
 * @property {Record<string, string>} [env] Added to the program's environment.
 * @property {string} [cwd] The program's working directory (default: tmux's).
 */

/** @param {string} part */
const quote = part => `'${part.replaceAll("'", "'\\''")}'`;

export class TmuxSession {
	/** @readonly */
	socket = `hangar-tmux-${randomUUID().slice(0, 8)}`;
	/** @readonly */
	target = 'tui';
	/**
	 * The program's exit status is written here by the shell that runs it.
	 * tmux's own #{pane_dead_status} is not reliable: tmux 3.3 can miss the
	 * SIGCHLD of a program that closes its terminal just before exiting, and
	 * then never reaps it.
	 * @private
	 * @readonly
	 */
	statusFile = path.join(tempDir('hangar-tmux-'), 'status');

	/**
	 * Runs `command` (argv) in a new detached session; the pane stays after it exits, so its last screen can be read.
	 * @param {readonly string[]} command
	 * @param {TmuxOptions} [options]
	 * @returns {void}
	 */
	start(command, options = {}) {
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

	/**
	 * The pid of the shell that runs the program (the program is its child).
	 * @returns {number}
	 */
	panePid() {
		return Number(this.tmux('display-message', '-p', '-t', this.target, '#{pane_pid}').trim());
	}

	/**
	 * The visible screen as text, one line per row, trailing blanks trimmed; with `history`, the lines scrolled off above it too.
	 * @param {{history?: boolean}} [options]
	 * @returns {string}
	 */
	screen(options = {}) {
		return this.tmux('capture-pane', '-p', ...(options.history === true ? ['-S', '-'] : []), '-t', this.target)
			.split('\n')
			.map(line => line.trimEnd())
			.join('\n')
			.trimEnd();
	}

	/**
	 * Sends keys by tmux name (Enter, Escape, Up, C-c).
	 * @param {...string} keys
	 * @returns {void}
	 */
	keys(...keys) {
		this.tmux('send-keys', '-t', this.target, ...keys);
	}

	/**
	 * Types text literally.
	 * @param {string} text
	 * @returns {void}
	 */
	type(text) {
		this.tmux('send-keys', '-t', this.target, '-l', text);
	}

	/**
	 * @param {number} columns
	 * @param {number} rows
	 * @returns {void}
	 */
	resize(columns, rows) {
		this.tmux('resize-window', '-t', this.target, '-x', String(columns), '-y', String(rows));
	}

	/**
	 * Waits until the screen matches, and returns it; on timeout the error shows the screen.
	 * @param {string | RegExp | ((screen: string) => boolean)} test
	 * @param {string} [what]
	 * @param {number} [timeoutMs]
	 * @returns {Promise<string>}
	 */
	async waitForScreen(test, what = String(test), timeoutMs = 30_000) {
		/** @param {string} screen */
		const matches = screen => (typeof test === 'string' ? screen.includes(test) : test instanceof RegExp ? test.test(screen) : test(screen));
		try {
			return await waitFor(() => {
				const screen = this.screen();
				return matches(screen) ? screen : undefined;
			}, what, timeoutMs, 50);
		} catch (error) {
			throw new Error(`${/** @type {Error} */ (error).message}; the screen shows:\n${this.screen()}`);
		}
	}

	/**
	 * The program's exit status once it has exited, else undefined.
	 * @returns {number | undefined}
	 */
	exitStatus() {
		try {
			const text = fs.readFileSync(this.statusFile, 'utf8').trim();
			return text === '' ? undefined : Number(text);
		} catch {
			return undefined;
		}
	}

	/**
	 * Waits until the program has exited, and returns its exit status; on timeout the error shows the screen, history included.
	 * @param {number} [timeoutMs]
	 * @returns {Promise<number>}
	 */
	async waitForExit(timeoutMs = 30_000) {
		try {
			return await waitFor(() => this.exitStatus(), 'the program in tmux to exit', timeoutMs, 50);
		} catch (error) {
			throw new Error(`${/** @type {Error} */ (error).message}; the screen shows:\n${this.screen({history: true})}`);
		}
	}

	/**
	 * Kills the tmux server and everything in it; safe to call twice.
	 * @returns {void}
	 */
	kill() {
		try {
			this.tmux('kill-server');
		} catch {}

		fs.rmSync(path.dirname(this.statusFile), {recursive: true, force: true});
	}

	/**
	 * @private
	 * @param {...string} args
	 * @returns {string}
	 */
	tmux(...args) {
		return execFileSync('tmux', ['-L', this.socket, ...args], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
	}
}
