/**
 * The config file's shape: the zod schemas of a server entry, a tool
 * definition and the `hangar` settings (each key's type and limits), the
 * defaults, and the resolved types the rest of the engine sees
 * (`ServerConfig`, `HangarSettings`, `HangarConfig`). Reading a file,
 * expanding variables and reporting problems entry by entry is
 * read-config.ts.
 */
import {z} from 'zod';

/** Server names become tool prefixes (`<server>__<tool>`), so they must be safe there and unambiguous. */
export const serverNamePattern = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/;
export const serverNameMaxLength = 32;

/** Whether `name` may be a server name or a namespace: both become the prefix of exposed names. */
export function isValidPrefix(name: string): boolean {
	return serverNamePattern.test(name) && name.length <= serverNameMaxLength && !name.endsWith('_');
}

/**
 * The longest duration a Node timer can wait: above 2^31-1 ms it overflows
 * and fires after 1 ms, so a "very long" timeout would act as an instant one.
 */
export const maxSeconds = Math.floor((2 ** 31 - 1) / 1000);

const atMost = (what: string) => ({error: `expected ${what} to be at most ${maxSeconds} (about 24 days)`});

const seconds = (what: string) =>
	z
		.number({error: `expected a number of seconds (${what})`})
		.nonnegative({error: `expected ${what} to be 0 or more`})
		.max(maxSeconds, atMost(what));

/** Whether `text` is an absolute http(s) URL. */
export function isHttpUrl(text: string): boolean {
	try {
		const url = new URL(text);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

export const httpUrlError = 'expected an http(s) URL';

/** A web origin (scheme, host and port, as a browser sends it in Origin), e.g. "https://app.example.com". */
const webOrigin = z.string().refine(
	text => {
		try {
			const url = new URL(text);
			return (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '';
		} catch {
			return false;
		}
	},
	{error: 'expected a web origin: scheme, host and optional port, no path, e.g. "https://app.example.com" or "http://localhost:3000"'},
);

const positiveSeconds = (what: string) =>
	z
		.number({error: `expected a number of seconds (${what})`})
		.positive({error: `expected ${what} to be more than 0`})
		.max(maxSeconds, atMost(what));

export const toolDefinitionSchema = z.strictObject({
	name: z.string().min(1),
	title: z.string().optional(),
	description: z.string().optional(),
	inputSchema: z.looseObject({type: z.literal('object')}).optional(),
	outputSchema: z.looseObject({type: z.literal('object')}).optional(),
	annotations: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A remote server's OAuth client settings (hangar signs in to it as an
 * OAuth 2.1 client, see link/oauth-sign-in.ts). Every key is optional: with
 * none, hangar registers itself (a Client ID Metadata Document where the
 * server advertises one and `clientMetadataUrl` is set, else dynamic
 * registration). A client secret is never written here: `clientSecretEnv`
 * names the variable (the environment, or the entry's `envFile`) it is read
 * from when it is needed.
 */
export const oauthSchema = z.strictObject({
	clientId: z.string().min(1, {error: 'expected a non-empty client id'}).optional(),
	clientSecretEnv: z
		.string()
		.regex(/^[A-Za-z_]\w*$/, {error: 'expected the name of an environment variable (letters, digits, "_") that holds the client secret'})
		.optional(),
	clientSecret: z.unknown().optional(),
	clientMetadataUrl: z.url({protocol: /^https$/, error: 'expected the https URL of this client\'s metadata document (Client ID Metadata Document)'}).optional(),
	scope: z.string().optional(),
	grant: z.enum(['authorization_code', 'client_credentials'], {error: 'expected "authorization_code" (a person signs in, the default) or "client_credentials" (a machine client: hangar gets tokens with clientId and its secret, no person)'}).optional(),
}).superRefine((oauth, context) => {
	if (oauth.grant === 'client_credentials' && (oauth.clientId === undefined || oauth.clientSecretEnv === undefined)) {
		context.addIssue({code: 'custom', path: ['grant'], message: '"client_credentials" needs the pre-registered client: set "clientId" and "clientSecretEnv"'});
	}

	if (oauth.clientSecret !== undefined) {
		context.addIssue({code: 'custom', path: ['clientSecret'], message: 'a client secret is never written in the config: put it in an environment variable (or this entry\'s "envFile") and name that variable in "clientSecretEnv"'});
	}

	if (oauth.clientSecretEnv !== undefined && oauth.clientId === undefined) {
		context.addIssue({code: 'custom', path: ['clientSecretEnv'], message: '"clientSecretEnv" is the secret of a pre-registered client: set "clientId" too'});
	}
});

const toolGlobs = (what: string) =>
	z.array(z.string().min(1), {error: `expected ${what} to be an array of tool names or globs ("*" any run of characters, "?" one)`});

export const serverSchema = z
	.strictObject({
		type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
		command: z.string().min(1, {error: 'expected a non-empty command'}).optional(),
		args: z.array(z.string(), {error: 'expected an array of strings'}).optional(),
		env: z.record(z.string(), z.string(), {error: 'expected an object of string values'}).optional(),
		cwd: z.string().optional(),
		// One with a ${VAR} in it is checked once the variables are expanded (read-config.ts): `${BASE}/mcp`, `http://localhost:${PORT}/mcp`.
		url: z
			.string()
			.refine(text => text.includes('${') || isHttpUrl(text), {error: httpUrlError})
			.optional(),
		headers: z.record(z.string(), z.string()).optional(),
		oauth: oauthSchema.optional(),
		lazy: z.boolean().optional(),
		idleTimeoutSeconds: seconds('idleTimeoutSeconds').optional(),
		callTimeoutSeconds: positiveSeconds('callTimeoutSeconds').optional(),
		startTimeoutSeconds: positiveSeconds('startTimeoutSeconds').optional(),
		tools: z.array(toolDefinitionSchema).optional(),
		disabled: z.boolean().optional(),
		quarantined: z.boolean().optional(),
		namespace: z
			.union([z.string(), z.literal(false)], {error: 'expected a prefix string (letters, digits, "-", single "_") or false (names unprefixed)'})
			.optional(),
		instances: z.enum(['auto', 'shared', 'per-client'], {error: 'expected "auto" (shared until it asks a client for roots, sampling or elicitation, then per client), "shared" (one instance for every client) or "per-client" (one instance per client session)'}).optional(),
		includeTools: toolGlobs('includeTools').optional(),
		excludeTools: toolGlobs('excludeTools').optional(),
		envFile: z.string({error: 'expected the path of a dotenv file'}).min(1, {error: 'expected the path of a dotenv file'}).optional(),
	})
	.superRefine((server, context) => {
		if (server.command === undefined && server.url === undefined) {
			context.addIssue({code: 'custom', message: 'expected either "command" (a subprocess) or "url" (a remote server)'});
		}

		if (server.command !== undefined && server.url !== undefined) {
			context.addIssue({code: 'custom', message: 'expected only one of "command" and "url", not both'});
		}

		if (server.type === 'stdio' && server.url !== undefined && server.command === undefined) {
			context.addIssue({code: 'custom', path: ['type'], message: 'expected "http", "streamable-http" or "sse" (or no "type") for a "url" server; "stdio" is for "command" servers'});
		}

		if (server.type !== undefined && server.type !== 'stdio' && server.command !== undefined && server.url === undefined) {
			context.addIssue({code: 'custom', path: ['type'], message: `expected "stdio" (or no "type") for a "command" server; "${server.type}" is for "url" servers`});
		}

		if (server.url === undefined && (server.headers !== undefined)) {
			context.addIssue({code: 'custom', path: ['headers'], message: '"headers" only applies to "url" servers'});
		}

		if (server.url === undefined && server.oauth !== undefined) {
			context.addIssue({code: 'custom', path: ['oauth'], message: '"oauth" only applies to "url" servers'});
		}

		if (server.instances === 'per-client' && server.lazy === false) {
			context.addIssue({code: 'custom', path: ['lazy'], message: '"lazy": false does not apply to a "per-client" server: each instance starts at its client session\'s first request'});
		}

		// With neither "command" nor "url" the entry lacks its command (often a misspelt key): its args are not the mistake.
		if (server.command === undefined && server.url !== undefined && (server.args !== undefined || server.env !== undefined || server.cwd !== undefined)) {
			context.addIssue({code: 'custom', message: '"args", "env" and "cwd" only apply to "command" servers'});
		}
	});

/** The most hangar.maxUpstreamMessageBytes may be: a line is read as one string, and V8's strings end at 2^29 - 24 characters. */
export const maxUpstreamMessageLimit = 500 * 1024 * 1024;

export const hangarSchema = z.strictObject({
	stateDir: z.string().optional(),
	healthIntervalSeconds: seconds('healthIntervalSeconds').optional(),
	pingTimeoutSeconds: positiveSeconds('pingTimeoutSeconds').optional(),
	failureThreshold: z.int().min(1).optional(),
	backoffMinSeconds: positiveSeconds('backoffMinSeconds').optional(),
	backoffMaxSeconds: positiveSeconds('backoffMaxSeconds').optional(),
	restartBudget: z
		.strictObject({
			maxRestarts: z.int().min(1),
			windowSeconds: positiveSeconds('windowSeconds'),
		})
		.optional(),
	startTimeoutSeconds: positiveSeconds('startTimeoutSeconds').optional(),
	stopGraceSeconds: positiveSeconds('stopGraceSeconds').optional(),
	idleTimeoutSeconds: seconds('idleTimeoutSeconds').optional(),
	callTimeoutSeconds: positiveSeconds('callTimeoutSeconds').optional(),
	lazy: z.boolean().optional(),
	maxMessageBytes: z.int().min(1024).optional(),
	maxUpstreamMessageBytes: z.int().min(1024).max(maxUpstreamMessageLimit, {error: `expected maxUpstreamMessageBytes to be at most ${maxUpstreamMessageLimit} (500 MiB): a longer line is more than one JavaScript string can hold`}).optional(),
	logLines: z.int().min(10).optional(),
	toolsRefreshSeconds: seconds('toolsRefreshSeconds').optional(),
	quarantineNew: z.boolean().optional(),
	pinning: z.enum(['first-use', 'approval', 'off'], {error: 'expected "first-use" (pin tools the first time they are listed), "approval" (only when a person approves) or "off"'}).optional(),
	exposure: z.enum(['direct', 'search'], {error: 'expected "direct" (every tool listed) or "search" (only the hangar_* tools; find tools with hangar_find_tools)'}).optional(),
	managementTools: z
		.enum(['all', 'read-only', 'none'], {error: 'expected "all" (every hangar_* tool), "read-only" (hangar_list, hangar_details, hangar_find_tools, hangar_call) or "none"'})
		.optional(),
	httpCallTimeoutSeconds: positiveSeconds('httpCallTimeoutSeconds').optional(),
	taskResultTimeoutSeconds: positiveSeconds('taskResultTimeoutSeconds').optional(),
	httpSessionIdleSeconds: positiveSeconds('httpSessionIdleSeconds').optional(),
	httpAllowedOrigins: z.array(webOrigin, {error: 'expected a list of web origins, e.g. ["https://app.example.com"]'}).optional(),
	lingerSeconds: seconds('lingerSeconds').optional(),
	inputRequiredSeconds: positiveSeconds('inputRequiredSeconds').max(3600, {error: 'expected inputRequiredSeconds to be at most 3600: hangar holds the upstream\'s request (and its call) that long'}).optional(),
	firstListWaitSeconds: seconds('firstListWaitSeconds').max(60, {error: 'expected firstListWaitSeconds to be at most 60: clients give up on a list long before that'}).optional(),
	maxInstancesPerServer: z.int({error: 'expected maxInstancesPerServer to be a whole number of at least 1'}).min(1).optional(),
	maxInstances: z.int({error: 'expected maxInstances to be a whole number of at least 1'}).min(1).optional(),
	metricsPort: z.int({error: 'expected metricsPort to be a whole number from 0 to 65535 (0: no metrics port)'}).min(0).max(65_535).optional(),
	auditLog: z.boolean().optional(),
	auditMaxBytes: z.int().min(4096, {error: 'expected auditMaxBytes to be at least 4096'}).optional(),
	auditFiles: z.int().min(1).max(100).optional(),
	auditArguments: z.boolean().optional(),
	tokenStore: z.enum(['file', 'keychain'], {error: 'expected tokenStore to be "file" (an owner-only file in the state dir) or "keychain" (the OS keychain)'}).optional(),
});

export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

export type StdioLaunch = {kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string};
/**
 * Where sign-ins are kept (hangar.tokenStore): `file` is the owner-only
 * file itself; for `keychain` it is where that file would be: the lock file
 * beside it is used, and the state dir names the keychain items.
 */
export type TokenStoreLocation = {kind: 'file' | 'keychain'; file: string};

/**
 * How hangar signs in to a remote upstream that asks for OAuth. It holds no
 * secret: the pre-registered client's secret is read from `clientSecret`'s
 * variable when a token request needs it, and tokens live in `store`.
 */
export type RemoteAuth = {
	/** The token store: `oauth-tokens.json` in the state dir, owner-only, or the OS keychain (link/oauth-store.ts). */
	store: TokenStoreLocation;
	clientId: string | undefined;
	/** Where the pre-registered client's secret is read: a variable of the environment or of the entry's envFile. */
	clientSecret: {variable: string; envFile: string | undefined} | undefined;
	clientMetadataUrl: string | undefined;
	scope: string | undefined;
	/** authorization_code: a person signs in (mcp-hangar auth); client_credentials: hangar gets tokens itself with the client's secret. */
	grant: 'authorization_code' | 'client_credentials';
};

export type RemoteLaunch = {kind: 'remote'; url: string; headers: Record<string, string>; transport: 'auto' | 'streamable-http' | 'sse'; auth?: RemoteAuth | undefined};

export type ServerConfig = {
	name: string;
	launch: StdioLaunch | RemoteLaunch;
	lazy: boolean;
	idleTimeoutMs: number;
	callTimeoutMs: number;
	startTimeoutMs: number;
	tools: ToolDefinition[] | undefined;
	disabled: boolean;
	quarantined: boolean;
	/**
	 * The prefix of its tools' and prompts' exposed names (`<namespace>__<name>`);
	 * the server's name unless set, `false` for unprefixed names.
	 */
	namespace: string | false;
	/**
	 * One instance for every client session ('shared'), one per client
	 * session that uses it ('per-client': for upstreams whose state must not
	 * mix between clients, e.g. scoped by each client's roots), or 'auto'
	 * (the default): shared until the upstream asks a client for roots,
	 * sampling or elicitation, then per client (see instance-mode.ts).
	 */
	instances: 'auto' | 'shared' | 'per-client';
	/** Tool name globs: when set, only the tools that match one are served (see tool-filter.ts). */
	includeTools: string[] | undefined;
	/** Tool name globs: the tools that match one are never served; wins over includeTools. */
	excludeTools: string[] | undefined;
	/**
	 * Why the entry cannot be used (its problems, one sentence), or undefined.
	 * An invalid entry runs as an upstream in state `invalid`: it never starts
	 * and its calls are refused with this reason. Its launch is what could be
	 * read of it, for display only.
	 */
	invalid: string | undefined;
	/**
	 * hangar.maxUpstreamMessageBytes: the longest message read from an
	 * upstream (a stdio one's line, a remote one's JSON answer or event); a
	 * longer answer fails its request at once with an error that names the
	 * limit. Unset (configs built in code): the default.
	 */
	maxUpstreamMessageBytes?: number | undefined;
};

export type HangarSettings = {
	stateDir: string;
	healthIntervalMs: number;
	pingTimeoutMs: number;
	failureThreshold: number;
	backoffMinMs: number;
	backoffMaxMs: number;
	restartBudget: {maxRestarts: number; windowMs: number};
	stopGraceMs: number;
	/** hangar.callTimeoutSeconds (servers may override it); also how long a `--stdio` bridge holds a request while no supervisor is reachable. */
	callTimeoutMs: number;
	maxMessageBytes: number;
	logLines: number;
	/** How often a running upstream's tool list is re-read; older lists are shown as stale. 0: never. */
	toolsRefreshMs: number;
	/** Upstreams new to the state dir start quarantined until a person approves them. */
	quarantineNew: boolean;
	/** When tools are pinned against rug pulls: at their first listing, only by a person's approval, or never (engine/upstream/pins.ts). */
	pinning: 'first-use' | 'approval' | 'off';
	/** What tools/list serves: every upstream tool plus the hangar_* tools, or only the hangar_* tools. */
	exposure: 'direct' | 'search';
	/** Which hangar_* tools MCP clients get: all, only those that read (and hangar_call), or none. */
	managementTools: 'all' | 'read-only' | 'none';
	/** `serve --http`: the server-side deadline of every call, below the usual client timeout (an upstream's shorter callTimeoutSeconds still wins). */
	httpCallTimeoutMs: number;
	/** How long a client's tasks/result may wait for its task to end (it blocks until then), in place of callTimeoutSeconds and httpCallTimeoutSeconds. */
	taskResultTimeoutMs: number;
	/** `serve --http`: an HTTP session with no request open for this long is closed. */
	httpSessionIdleMs: number;
	/** `serve --http`: the browser origins (Origin header) allowed besides loopback pages on a loopback endpoint; lower case. */
	httpAllowedOrigins: string[];
	/** A supervisor a client's `--stdio` started (`serve --linger`) exits once no client has been attached for this long. */
	lingerMs: number;
	/** How long a 2026-07-28 client has to retry a call answered with input_required before hangar frees the upstream's request it holds (gateway/held-inputs.ts). */
	inputRequiredMs: number;
	/** How long a client's first tools/list (or prompts/list) waits for the upstreams with nothing cached to list theirs. 0: not at all. */
	firstListWaitMs: number;
	/** At most this many per-client instances of one server run at once (one per client session); a new session's request past it is refused. */
	maxInstancesPerServer: number;
	/** At most this many per-client instances run at once across all servers. */
	maxInstances: number;
	/** A loopback port serving Prometheus metrics at /metrics for any supervisor (a daemon a client started too); 0: none. */
	metricsPort: number;
	/** Every call and every person's action appended to STATE_DIR/audit.jsonl (engine/observe/audit-log.ts). */
	auditLog: boolean;
	/** The audit file is rotated past this size (audit.jsonl.1, .2, …). */
	auditMaxBytes: number;
	/** Audit files kept, the current one included. */
	auditFiles: number;
	/** Whether a call's arguments are written to the audit file (masked); otherwise only their size. */
	auditArguments: boolean;
	/** Where OAuth sign-ins are kept: an owner-only file in the state dir, or the OS keychain (link/oauth-store.ts, link/oauth-keychain.ts). */
	tokenStore: 'file' | 'keychain';
};

export type HangarConfig = {
	/** Absolute path of the file it came from (or a label for configs built in code). */
	path: string;
	hangar: HangarSettings;
	servers: ServerConfig[];
	/**
	 * Every problem that did not stop the load, in file order: errors (an
	 * entry made invalid, a setting or top-level key ignored) and notices
	 * (another client's key that hangar ignores).
	 */
	issues: ConfigIssue[];
};

export const defaults = {
	healthIntervalSeconds: 30,
	pingTimeoutSeconds: 5,
	failureThreshold: 3,
	backoffMinSeconds: 1,
	backoffMaxSeconds: 60,
	restartBudget: {maxRestarts: 5, windowSeconds: 60},
	startTimeoutSeconds: 30,
	stopGraceSeconds: 2,
	idleTimeoutSeconds: 300,
	callTimeoutSeconds: 60,
	lazy: true,
	maxMessageBytes: 4 * 1024 * 1024,
	/** Above the 100 MB a line-reading client takes directly here (an SDK stdio client stops at 10 MiB); see docs/configuration.md. */
	maxUpstreamMessageBytes: 128 * 1024 * 1024,
	logLines: 500,
	toolsRefreshSeconds: 600,
	quarantineNew: false,
	pinning: 'first-use',
	exposure: 'direct',
	managementTools: 'all',
	httpCallTimeoutSeconds: 25,
	httpSessionIdleSeconds: 600,
	httpAllowedOrigins: [],
	lingerSeconds: 300,
	inputRequiredSeconds: 300,
	firstListWaitSeconds: 2,
	maxInstancesPerServer: 32,
	maxInstances: 128,
	taskResultTimeoutSeconds: 3600,
	metricsPort: 0,
	auditLog: true,
	auditMaxBytes: 10 * 1024 * 1024,
	auditFiles: 3,
	auditArguments: false,
	/** A file: a daemon detached from a desktop session often finds the keychain locked or absent (docs/oauth.md). */
	tokenStore: 'file',
} as const;

export type ConfigIssue = {
	path: string;
	message: string;
	/** `error` (the default): something does not work as written; `notice`: another client's key, ignored. */
	severity?: 'error' | 'notice';
	/** Set for an unset `${VAR}`: the config editors accept it (the file is used in another environment). */
	/** What in the environment made it an error (an editor writes the entry anyway: the environment hangar runs in may differ, or the file come later). */
	cause?: 'unset-variable' | 'unreadable-env-file';
	/** The server entry it belongs to, when it belongs to one. */
	server?: string;
};
