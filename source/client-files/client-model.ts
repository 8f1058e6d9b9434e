/**
 * The shared model of other MCP clients' config files: which client, which
 * file, which server map inside it, and each server entry as read from there
 * and as hangar will write it. The per-client modules produce it; import,
 * setup and the CLI's reports consume it.
 */

export const clientIds = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'cline', 'gemini', 'codex'] as const;
export type ClientId = (typeof clientIds)[number];

/** Where a client's files are looked for: this user's home and the directory hangar runs in. */
export type ClientEnvironment = {
	home: string;
	platform: NodeJS.Platform;
	env: Record<string, string | undefined>;
	cwd: string;
};

/** A file a client may keep servers in. `project` files belong to the directory they sit in. */
/** `lenient`: a file no client names (one given by path, often pasted from a client's docs), read as JSON with comments and trailing commas whatever its client's own syntax. */
export type ClientLocation = {client: ClientId; scope: 'user' | 'project'; file: string; lenient?: boolean};

/** One map of servers inside a file (a file can hold several: Claude Code keeps one per project). */
export type ServerGroup = {
	/** The JSON path of the map, e.g. ["mcpServers"] or ["projects", "/home/me/app", "mcpServers"]. */
	path: string[];
	/** The directory these servers run in when the client launches them, if it is known. */
	projectDir: string | undefined;
	servers: Record<string, unknown>;
};

/** A server entry in hangar's config (`mcpServers.<name>`), as import writes it. */
export type HangarEntry = {
	type?: 'http' | 'streamable-http' | 'sse';
	command?: string;
	args?: string[];
	env?: Record<string, string>;
	/** A dotenv file's absolute path: its variables, below env's. */
	envFile?: string;
	cwd?: string;
	url?: string;
	headers?: Record<string, string>;
	/** A remote server's OAuth client settings (from the client's own, or mcp-remote's --static-oauth-client-info). */
	oauth?: {clientId?: string; scope?: string};
	callTimeoutSeconds?: number;
	startTimeoutSeconds?: number;
	/** Tool name globs: only these are served (Gemini CLI's own key). */
	includeTools?: string[];
	/** Tool name globs never served (Gemini CLI's excludeTools, Windsurf's and 1mcp's disabledTools, mcpmu's deniedTools). */
	excludeTools?: string[];
	disabled?: boolean;
};

/** A server found in another client's file. */
export type ForeignServer = {
	client: ClientId;
	file: string;
	group: ServerGroup;
	/** Its name in that file. */
	name: string;
	/** What hangar will write; undefined when the entry cannot be used (see problem). */
	entry: HangarEntry | undefined;
	/** What was mapped, dropped or needs a person's attention, one sentence each. Never a secret's value. */
	notes: string[];
	problem: string | undefined;
};

/** One client file that was read. */
export type ClientFile = {
	location: ClientLocation;
	servers: ForeignServer[];
	/** Notes about the file as a whole (e.g. VS Code inputs). */
	notes: string[];
	/** Whether it has a map of servers in a form hangar knows (an empty one counts): otherwise its 0 servers mean it is not such a file. */
	hasServerMap: boolean;
};

/** Same upstream, wherever it was configured: the command line, or the URL. */
export function serverIdentity(entry: HangarEntry): string {
	const sorted = (record: Record<string, string> | undefined) => (record === undefined ? [] : Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
	// The whole launch: two entries that differ only in a token (env, envFile,
	// headers) or a working directory are two upstreams, and one must not stand
	// for the other in an import or a setup.
	return entry.url === undefined
		? `command:${JSON.stringify([entry.command ?? '', entry.args ?? [], sorted(entry.env), entry.envFile ?? null, entry.cwd ?? null])}`
		: `url:${JSON.stringify([entry.url, sorted(entry.headers)])}`;
}

/** Whether an entry launches hangar itself (what `setup` writes): importing it would loop. */
export function launchesHangar(name: string, entry: HangarEntry): boolean {
	const args = entry.args ?? [];
	if (!args.includes('--stdio')) return false;
	return name === 'hangar' || /mcp-hangar/.test([entry.command ?? '', ...args].join(' '));
}
