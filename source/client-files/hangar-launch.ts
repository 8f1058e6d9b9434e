/**
 * The command line a client should use to launch hangar's stdio endpoint,
 * and how a person types hangar in a shell. Clients launched from a desktop
 * (Claude Desktop from the Dock, say) do not see the PATH of a shell: on
 * macOS a GUI app's PATH lacks Homebrew's and nvm's node, so even the
 * `mcp-hangar` bin (`#!/usr/bin/env node`) would fail there. The command is
 * therefore this Node binary and this installation's dist/cli.js, both
 * absolute (a global install's path stays the same across upgrades).
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import {fileURLToPath} from 'node:url';
import {defaultStateDir} from '../core/config/paths.js';
import {commandLine, shellWord} from '../core/base/shell-words.js';
import type {HangarLaunch} from './client-format.js';

/** dist/cli.js of the running installation. */
export function installedCliPath(): string {
	return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli.js');
}

function realpath(file: string): string | undefined {
	try {
		return fs.realpathSync(file);
	} catch {
		return undefined;
	}
}

/** The first executable `name` on `searchPath`, as an absolute path. */
export function onPath(name: string, searchPath: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
	const extensions = platform === 'win32' ? ['.cmd', '.exe', ''] : [''];
	for (const dir of (searchPath ?? '').split(path.delimiter)) {
		if (dir === '' || !path.isAbsolute(dir)) continue;
		for (const extension of extensions) {
			const candidate = path.join(dir, name + extension);
			try {
				fs.accessSync(candidate, fs.constants.X_OK);
				if (fs.statSync(candidate).isFile()) return candidate;
			} catch {
				// Not here.
			}
		}
	}

	return undefined;
}

/**
 * The launch also names the state dir when the config file does not set
 * one: the default state dir follows XDG_STATE_HOME and MCP_HANGAR_STATE_DIR,
 * and a client that passes its servers only HOME, PATH, SHELL and TERM (the
 * SDK's default stdio environment) would otherwise resolve another one and
 * run a second supervisor for the same config. Pinned to what the person's
 * shell resolves when setup runs, every client reaches the supervisor the
 * TUI and `serve` reach.
 */
export function hangarLaunch(configPath: string): HangarLaunch {
	const file = path.resolve(configPath);
	const args = [realpath(installedCliPath()) ?? installedCliPath(), '--stdio', '--config', file];
	if (!setsStateDir(file)) args.push('--state-dir', defaultStateDir());
	return {command: process.execPath, args};
}

/** Whether the config file sets `hangar.stateDir` itself (then the file decides, whatever the environment). */
function setsStateDir(file: string): boolean {
	try {
		const raw = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as {hangar?: {stateDir?: unknown}};
		return typeof raw.hangar?.stateDir === 'string';
	} catch {
		return false;
	}
}

/** How a person types hangar in a shell: `mcp-hangar` when that is this installation on PATH, else node and this dist/cli.js. */
export function selfCommand(env: Record<string, string | undefined> = process.env): string {
	const cached = selfCommands.get(env['PATH']);
	if (cached !== undefined) return cached;
	const cli = installedCliPath();
	const bin = onPath('mcp-hangar', env['PATH']);
	const self = bin !== undefined && realpath(bin) === realpath(cli) ? 'mcp-hangar' : `node ${shellWord(cli)}`;
	selfCommands.set(env['PATH'], self);
	return self;
}

const selfCommands = new Map<string | undefined, string>();

const launchLines = new Map<string, string>();

/** The command line a client should launch for `configPath`, ready to copy (looked up once per config). */
export function launchCommandLine(configPath: string): string {
	let line = launchLines.get(configPath);
	if (line === undefined) {
		const launch = hangarLaunch(configPath);
		line = commandLine(launch.command, launch.args);
		launchLines.set(configPath, line);
	}

	return line;
}
