/**
 * A private, unlocked OS keychain for a test: its own D-Bus session bus
 * (dbus-daemon) and gnome-keyring's Secret Service on it, unlocked with a
 * throwaway password, its keyrings in a temporary XDG_DATA_HOME. The
 * person's own session and keyring are never touched. The tools are
 * Debian's dbus-daemon, gnome-keyring and libsecret-tools (secret-tool):
 * when one is missing the test fails saying which package to install.
 */
import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {tempDir, waitFor} from './hangar.js';

const tools: Array<[string, string]> = [
	['dbus-daemon', 'dbus-daemon'],
	['dbus-send', 'dbus-bin'],
	['gnome-keyring-daemon', 'gnome-keyring'],
	['secret-tool', 'libsecret-tools'],
];

export type KeychainSession = {
	/** DBUS_SESSION_BUS_ADDRESS and the rest, for every process that should see this keychain. */
	env: Record<string, string>;
	/** `secret-tool lookup` of an item hangar wrote (service mcp-hangar); undefined when there is none. */
	lookup: (account: string) => string | undefined;
	close: () => Promise<void>;
};

function requireTools(): void {
	const missing = tools.filter(([tool]) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
	if (missing.length > 0) {
		throw new Error(
			`the keychain test needs ${missing.map(([tool, pkg]) => `${tool} (Debian package ${pkg})`).join(', ')}: install them with apt-get install -y ${missing.map(([, pkg]) => pkg).join(' ')}`,
		);
	}
}

async function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise(resolve => child.once('exit', resolve));
	child.kill('SIGTERM');
	await exited;
}

export async function startKeychainSession(): Promise<KeychainSession> {
	requireTools();
	const dir = tempDir('hangar-keychain-');
	const runtime = path.join(dir, 'runtime');
	fs.mkdirSync(runtime, {mode: 0o700});
	const bus = spawn('dbus-daemon', ['--session', '--nofork', '--nopidfile', '--print-address=1', `--address=unix:path=${path.join(runtime, 'bus')}`], {stdio: ['ignore', 'pipe', 'ignore']});
	let printed = '';
	bus.stdout!.on('data', (chunk: Buffer) => {
		printed += chunk.toString();
	});
	const address = await waitFor(() => (printed.includes('\n') ? printed.trim() : undefined), 'the private D-Bus session to print its address');
	const env = {DBUS_SESSION_BUS_ADDRESS: address, XDG_RUNTIME_DIR: runtime, XDG_DATA_HOME: path.join(dir, 'data')};
	// --foreground: it stays this test's child, stopped in close(); --unlock reads the login keyring's password on stdin.
	const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {env: {...process.env, ...env}, stdio: ['pipe', 'ignore', 'ignore']});
	keyring.stdin!.end('throwaway-keyring-password');
	const lookup = (account: string): string | undefined => {
		const found = spawnSync('secret-tool', ['lookup', 'service', 'mcp-hangar', 'username', account], {env: {...process.env, ...env}, encoding: 'utf8'});
		return found.status === 0 ? found.stdout : undefined;
	};

	// Its name owned first (NameHasOwner starts nothing): a probe sooner would have the bus start another gnome-keyring, locked.
	await waitFor(
		() => /boolean true/.test(spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], {env: {...process.env, ...env}, encoding: 'utf8'}).stdout) || undefined,
		'gnome-keyring to own org.freedesktop.secrets on the private D-Bus session',
	);
	// Ready once a secret can be stored in its (unlocked) login keyring; the probe's secret goes on stdin.
	await waitFor(
		() => spawnSync('secret-tool', ['store', '--label=probe', 'service', 'hangar-test-probe'], {env: {...process.env, ...env}, input: 'probe'}).status === 0 || undefined,
		'gnome-keyring to serve an unlocked keyring on the private D-Bus session',
	);
	return {
		env,
		lookup,
		async close() {
			await stop(keyring);
			await stop(bus);
		},
	};
}
