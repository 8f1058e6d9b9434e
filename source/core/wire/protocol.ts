/**
 * Hangar's side of the protocol, written once: its name and version (from
 * package.json, so `--version`, `initialize` and the upstreams all say the
 * same), the MCP protocol versions it speaks, and the names of its private
 * methods, which only hangar's own processes send each other on the local
 * socket. Plain data with no dependencies, so the thin `--stdio` bridge and
 * the CLI client can use it without loading the engine or the SDK.
 */
import fs from 'node:fs';

/**
 * hangar's package.json: the nearest one above this code, as Node finds a
 * package's. This module runs as source/core/wire/protocol.ts, as
 * dist/core/wire/protocol.js, and inlined into the bundled dist/cli.js
 * (scripts/bundle.js), so its depth below the package differs.
 */
function readPackageJson(): {name: string; version: string} {
	for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
		try {
			return JSON.parse(fs.readFileSync(new URL('package.json', dir), 'utf8')) as {name: string; version: string};
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dir.pathname === '/') throw error;
		}
	}
}

const packageJson = readPackageJson();

export const hangarName: string = packageJson.name;
export const hangarVersion: string = packageJson.version;

/** Who hangar is in `initialize`: as a server to its clients, and as a client to its upstreams. */
export const implementationInfo = {name: hangarName, version: hangarVersion};

/**
 * The MCP protocol versions hangar negotiates with its clients through
 * `initialize` (the legacy generation), newest first: hangar's own list, not
 * the SDK's, so a later SDK adding versions does not make hangar offer them.
 * A unit test checks this list is still one the SDK's client speaks to
 * upstreams.
 */
export const supportedProtocolVersions = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;
/**
 * The modern (2026-07-28 and later) versions hangar serves per request, with
 * no `initialize` and no session: a request names one in its `_meta`
 * envelope (gateway/protocol-era.ts), and `server/discover` lists them.
 */
export const modernProtocolVersions = ['2026-07-28'] as const;
export const latestProtocolVersion = supportedProtocolVersions[0];

/** Hangar's private request methods start with this; no MCP client may send them (the bridge refuses them). */
export const hangarMethodPrefix = 'hangar/';

export function isHangarMethod(method: string): boolean {
	return method.startsWith(hangarMethodPrefix);
}

/**
 * A person's command sent over the local socket (`mcp-hangar approve` and
 * `quarantine` while a supervisor runs): params {server, action, via}. Only
 * sessions on the local socket serve it, and the `--stdio` bridge never
 * forwards it from its client, so no MCP client can lift a quarantine.
 */
export const personActionMethod = `${hangarMethodPrefix}command`;

/**
 * A person starts an OAuth sign-in to a remote upstream in the supervisor's
 * process (the TUI's sign-in key): params {server, via}; the answer is the
 * authorization URL and whether the supervisor opened a browser. Socket-only,
 * like personActionMethod.
 */
export const signInMethod = `${hangarMethodPrefix}sign-in`;

/**
 * Sent by mcp-hangar's own CLI on the local socket to say a person is at
 * the other end: `hangar.managementTools` narrows what MCP clients may do,
 * not what people may. Socket-only, like personActionMethod, and never
 * forwarded by the bridge.
 */
export const personMethod = `${hangarMethodPrefix}person`;

/**
 * `mcp-hangar shutdown` over the local socket: params {via}; the supervisor
 * answers, then exits as at SIGTERM, its audit line naming who asked.
 * Socket-only, like personActionMethod, and never forwarded by the bridge.
 */
export const shutdownMethod = `${hangarMethodPrefix}shutdown`;

/**
 * Sent to socket clients when the supervisor is about to stop: a bridge stops
 * sending on that connection, ends its side (so everything it sent is read and
 * answered), and reconnects to the next supervisor.
 */
export const drainingNotification = 'notifications/hangar/draining';

/**
 * `mcp-hangar reload` and the drift `mcp-hangar status` shows, over the local
 * socket: params {reload?: boolean, via?: string}; answers
 * {config: ConfigView, reload: ReloadView | null}.
 */
export const configMethod = `${hangarMethodPrefix}config`;

/**
 * `mcp-hangar logs SERVER [-f]` over the local socket: params {server,
 * after?: number, wait?: boolean}; answers the upstream's log lines numbered
 * from `after` (see LogPage). With `wait`, an answer with no line waits for
 * the next one.
 */
export const logsMethod = `${hangarMethodPrefix}logs`;

/**
 * `mcp-hangar logs --calls [-f]` over the local socket: params {after?:
 * number, wait?: boolean}; answers the calls log's calls numbered after
 * `after` (see CallsPage). With `wait`, an answer with no call waits for the
 * next one.
 */
export const callsMethod = `${hangarMethodPrefix}calls`;

/** The name hangar's own CLI gives in initialize: its session words hints for a shell (`mcp-hangar start fx`, not a tool). */
export const cliClientName = 'mcp-hangar-cli';

/** Socket sessions only, like personActionMethod: the attached terminal UI's reads. */
/** Reads a console snapshot: params ConsoleParams, answers ConsoleAnswer. */
export const consoleMethod = `${hangarMethodPrefix}console`;

/** Tells a console that has read a snapshot that it may have changed (no params): it reads again when it likes. */
export const consoleChangedNotification = 'notifications/hangar/console/changed';

/** MCP's notification methods all start with this; sent with an id they are refused (see message-classifier.ts). */
export const notificationPrefix = 'notifications/';

/** The most upstreams one page of `hangar_list` returns; the CLI client pages with it. */
export const maxListLimit = 500;

/** The one protocol version with JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18. */
export const batchVersion = '2025-03-26';
