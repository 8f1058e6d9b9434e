/**
 * The terminal while `mcp-hangar tui` owns it: the alternate screen, so the
 * UI leaves nothing in the scrollback ("stopping N upstreams…" frames) and
 * the shell's screen comes back as it was; the terminal restored however the
 * process ends (a quit, process.exit, a signal's exit, a crash: an uncaught
 * exception is monitored before Node prints it, so its trace lands on the
 * normal screen); and a first frame before anything heavy loads.
 *
 * `cli.tsx` imports this module first, so its body runs before the modules
 * behind the CLI are evaluated (meow, zod, the engine, Ink): "starting N
 * upstreams…" is on the screen within ~100 ms of launch, and the TUI draws
 * over it when it is ready. Whatever is written to stderr meanwhile (a
 * config error, a refusal) is held and written again on the normal screen
 * once the alternate screen is left, so no message is lost with it.
 */
import fs from 'node:fs';
import process from 'node:process';
import {defaultConfigCandidates} from '../core/config/paths.js';
import {terminalText} from '../core/base/terminal-text.js';

const enter = '\u001B[?1049h\u001B[?25l\u001B[H\u001B[2J';
const leave = '\u001B[?25h\u001B[?1049l';
/** Characters of stderr held while the alternate screen is on (a config error is a few lines). */
const heldLimit = 64 * 1024;

let active = false;
let held = '';
let originalWrite: typeof process.stderr.write | undefined;

/** Whether the alternate screen is on. */
export function onAlternateScreen(): boolean {
	return active;
}

/** Switches to the alternate screen, holding stderr until it is left; restores the terminal at exit and on a crash. */
export function enterAlternateScreen(): void {
	if (active) return;
	active = true;
	fs.writeSync(1, enter);
	originalWrite = process.stderr.write.bind(process.stderr) as typeof process.stderr.write;
	process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
		if (held.length < heldLimit) held += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
		const callback = rest.find(item => typeof item === 'function') as (() => void) | undefined;
		callback?.();
		return true;
	}) as typeof process.stderr.write;
	process.on('exit', leaveAtExit);
	process.on('uncaughtExceptionMonitor', leaveAtExit);
}

/**
 * Leaving as the process ends: Ink unmounts from its own exit hook, which
 * runs after every 'exit' listener (signal-exit wraps process.emit), and
 * writes its last frame then. That frame belongs to the alternate screen
 * just left: stdout writes from here on are dropped, or it would land on
 * the shell's screen.
 */
function leaveAtExit(): void {
	if (!active) return;
	leaveAlternateScreen();
	process.stdout.write = ((...args: unknown[]): boolean => {
		const callback = args.find(item => typeof item === 'function') as (() => void) | undefined;
		callback?.();
		return true;
	}) as typeof process.stdout.write;
}

/** Back to the normal screen, the cursor shown, and what stderr got meanwhile written there. Safe to call more than once. */
export function leaveAlternateScreen(): void {
	if (!active) return;
	active = false;
	if (originalWrite !== undefined) process.stderr.write = originalWrite;
	originalWrite = undefined;
	try {
		fs.writeSync(1, leave);
		if (held !== '') fs.writeSync(2, terminalText(held, 'lines'));
	} catch {
		// The terminal is gone (SIGHUP): nothing left to restore.
	}

	held = '';
}

/** Clears the alternate screen for the UI's first frame (it draws from the top-left corner). */
export function clearForUi(): void {
	if (active) fs.writeSync(1, '\u001B[H\u001B[2J');
}



/** The value of `--config`/`-c` in argv, or the config the CLI would find by default. */
function configOf(argv: readonly string[]): string | undefined {
	for (let index = 0; index < argv.length; index++) {
		const word = argv[index]!;
		if (word === '--config' || word === '-c') return argv[index + 1];
		if (word.startsWith('--config=')) return word.slice('--config='.length);
	}

	return defaultConfigCandidates().find(candidate => fs.existsSync(candidate));
}

/** How many servers a config file names, read without validating it (the UI validates it properly). */
function serverCount(file: string | undefined): number | undefined {
	if (file === undefined) return undefined;
	try {
		const servers = (JSON.parse(fs.readFileSync(file, 'utf8')) as {mcpServers?: unknown}).mcpServers;
		return typeof servers === 'object' && servers !== null ? Object.keys(servers).length : undefined;
	} catch {
		return undefined;
	}
}

/**
 * For `mcp-hangar tui` in a terminal (not `tui --help`): the alternate
 * screen and a first line saying what is happening, at once.
 */
export function showSplash(argv: readonly string[]): void {
	const words = argv.slice(2);
	if (words[0] !== 'tui' || words.some(word => word === '--help' || word === '-h' || word === '--version')) return;
	if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return;
	const config = configOf(words);
	const count = serverCount(config);
	enterAlternateScreen();
	const what = count === undefined ? 'starting…' : `starting ${count} upstream${count === 1 ? '' : 's'}…`;
	fs.writeSync(1, `\u001B[1;36mmcp-hangar\u001B[22;39m  ${terminalText(config ?? '')}\r\n${what}\r\n`);
}

showSplash(process.argv);
