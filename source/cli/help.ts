/**
 * The CLI's help, written once: each command's usage, what it does, the
 * flags that apply to it and examples. `mcp-hangar help COMMAND`,
 * `COMMAND --help` and `-h` print one entry; `--help` alone prints the
 * overview, which is built from the same entries so the two cannot disagree.
 */
import {demoConfigPath} from './demo-config.js';

export type VerbHelp = {
	name: string;
	usage: string[];
	summary: string;
	/** More about it, wrapped by hand. */
	details: string[];
	/** Flags that apply (names without the dashes, in the order shown). */
	flags: string[];
	examples: string[];
};

/** Every flag, as the help shows it. */
export const flagHelp: Record<string, string[]> = {
	config: ['--config, -c PATH', 'Config file (default: ./mcp-hangar.json, then ~/.config/mcp-hangar/config.json)'],
	'state-dir': ['--state-dir PATH', 'Where hangar keeps its state (default: $MCP_HANGAR_STATE_DIR or ~/.local/state/mcp-hangar)'],
	'log-file': ['--log-file PATH', "Write hangar's log to this file instead of stderr (tui: default STATE_DIR/hangar.log)"],
	'log-level': ['--log-level LEVEL', 'debug, info, warn, error or silent (default: info; warn for the one-shot commands and for what --stdio writes to stderr, its info lines going to STATE_DIR/hangar.log)'],
	stdio: ['--stdio', "Serve every upstream's tools as one MCP server on stdin/stdout"],
	standalone: ['--standalone', '--stdio: run a supervisor for this client alone, neither using nor starting a shared one'],
	linger: ['--linger', 'serve: exit once no client has been attached for hangar.lingerSeconds (what --stdio starts when no supervisor runs)'],
	follow: ['--follow, -f', 'logs: keep printing new lines until Ctrl-C'],
	calls: ['--calls', 'logs: every tool call across upstreams instead of one upstream\'s log (with --json: one JSON object a call, arguments and results included, masked)'],
	'check-config': ['--check-config', 'Validate the config file and exit (non-zero on errors)'],
	actions: ['--actions', 'logs: the people\'s actions and config reloads of the audit file (start, stop, quarantine, approve, each sign-in step, sign-out) instead of one upstream\'s log'],
	json: ['--json', 'status, call, logs --calls, logs --actions: print JSON instead of text'],
	args: ['--args JSON', "call: the tool's arguments as a JSON object"],
	'demo-traffic': ['--demo-traffic SERVER/TOOL', 'tui: call this tool twice a second, to watch hangar at work without a client'],
	http: ['--http', 'serve, tui: also serve MCP over Streamable HTTP at /mcp'],
	host: ['--host ADDRESS', '--http: the address to listen on (default: 127.0.0.1; anything but loopback needs a token)'],
	port: ['--port N', '--http: the port to listen on (default: 8080; 0: any free port)'],
	'token-file': ['--token-file PATH', '--http: clients must send "Authorization: Bearer <the file\'s content>" (default: $MCP_HANGAR_TOKEN)'],
	'dry-run': ['--dry-run', 'import, setup: print what would change and write nothing'],
	undo: ['--undo', 'setup: put back the client file as it was before the last setup'],
	yes: ['-y, --yes', 'shutdown: stop even when MCP clients are attached, without asking'],
	logout: ['--logout', 'auth: forget the upstream\'s tokens and client registration instead of signing in'],
	browser: ['--browser, --no-browser', 'auth: open a browser at the sign-in page (the default), or print the URL instead (also what happens over ssh or without a display)'],
	env: ['--env K=V', 'add: an environment variable for the server (repeat for more)'],
	url: ['--url URL', 'add: a remote server at this URL instead of a command'],
	header: ['--header "K: V"', 'add: an HTTP header for a --url server (repeat for more)'],
	version: ['--version', 'Print the version'],
	help: ['--help, -h', 'Print the help (of a command: mcp-hangar COMMAND --help)'],
};

const clientList = 'claude-desktop, claude-code, cursor, vscode, windsurf, cline, gemini, codex';

export const commandHelps: VerbHelp[] = [
	{
		name: 'tui',
		usage: ['mcp-hangar tui [options]'],
		summary: 'Open the terminal UI: watch and steer every upstream live',
		details: [
			'With a tui or serve already running the same config, it attaches to that supervisor (q then only detaches); otherwise it runs one, and --stdio clients with the same config attach to it while it runs.',
			'Press ? in it for the keys.',
		],
		flags: ['config', 'state-dir', 'log-file', 'log-level', 'demo-traffic', 'http', 'host', 'port', 'token-file'],
		examples: [`mcp-hangar tui --config ${demoConfigPath} --demo-traffic flaky-demo/echo`],
	},
	{
		name: 'serve',
		usage: ['mcp-hangar serve [options]', 'mcp-hangar serve --http [options]'],
		summary: 'Run the supervisor headless; --stdio clients and the CLI attach to it',
		details: ['With --http it also serves MCP over Streamable HTTP at http://HOST:PORT/mcp.'],
		flags: ['config', 'state-dir', 'log-file', 'log-level', 'http', 'host', 'port', 'token-file', 'linger'],
		examples: ['mcp-hangar serve --config ~/mcp-hangar.json', 'MCP_HANGAR_TOKEN=$(openssl rand -hex 32) mcp-hangar serve --http --port 8080'],
	},
	{
		name: 'status',
		usage: ['mcp-hangar status [--json] [options]'],
		summary: 'Show every upstream (the hangar_list view) for the config',
		details: ['Live state when a tui or serve runs the config; otherwise the saved state (nothing is started).'],
		flags: ['config', 'state-dir', 'log-level', 'json'],
		examples: [`mcp-hangar status --config ${demoConfigPath}`, 'mcp-hangar status --json'],
	},
	{
		name: 'call',
		usage: ['mcp-hangar call SERVER TOOL [--args JSON] [--json] [options]'],
		summary: 'Call one tool; its result on stdout, exit code 1 on error',
		details: ["TOOL is the upstream's own tool name, without the SERVER__ prefix."],
		flags: ['config', 'state-dir', 'log-level', 'args', 'json'],
		examples: [`mcp-hangar call demo echo --args '{"message":"hi"}' --config ${demoConfigPath}`],
	},
	{
		name: 'approve',
		usage: ['mcp-hangar approve SERVER [options]'],
		summary: "Lift a quarantine and pin the upstream's tools",
		details: [],
		flags: ['config', 'state-dir', 'log-level'],
		examples: ['mcp-hangar approve memory'],
	},
	{
		name: 'quarantine',
		usage: ['mcp-hangar quarantine SERVER [options]'],
		summary: 'Quarantine an upstream: never started, tools hidden',
		details: [],
		flags: ['config', 'state-dir', 'log-level'],
		examples: ['mcp-hangar quarantine memory'],
	},
	{
		name: 'start',
		usage: ['mcp-hangar start SERVER [options]'],
		summary: 'Start an upstream in the running supervisor',
		details: ['Only through a running supervisor (tui, serve, or the one a client started); with none running it says so and exits 1.'],
		flags: ['config', 'state-dir', 'log-level'],
		examples: ['mcp-hangar start memory --config ~/mcp-hangar.json'],
	},
	{
		name: 'stop',
		usage: ['mcp-hangar stop SERVER [options]'],
		summary: 'Stop an upstream; it does not start on demand until started again',
		details: ['Only through a running supervisor; with none running it says so and exits 1.'],
		flags: ['config', 'state-dir', 'log-level'],
		examples: ['mcp-hangar stop memory --config ~/mcp-hangar.json'],
	},
	{
		name: 'restart',
		usage: ['mcp-hangar restart SERVER [options]'],
		summary: 'Stop an upstream and start it again',
		details: ['Only through a running supervisor; with none running it says so and exits 1.'],
		flags: ['config', 'state-dir', 'log-level'],
		examples: [`mcp-hangar restart demo --config ${demoConfigPath}`],
	},
	{
		name: 'logs',
		usage: ['mcp-hangar logs SERVER [-f] [options]', 'mcp-hangar logs --calls [SERVER] [-f] [--json] [options]', 'mcp-hangar logs --actions [SERVER] [--json] [options]'],
		summary: "An upstream's stderr and state changes, or the calls flowing (--calls); -f follows until Ctrl-C",
		details: [
			'Read from the running supervisor; with none running it says so and exits 1 (--calls without -f reads the audit file instead).',
			'--calls prints the calls the supervisor keeps (the last 500, earlier runs\' included, what the TUI shows under t): time, client, upstream/tool, latency, ok or the error code; SERVER keeps one upstream\'s.',
			'--actions prints the last 500 people\'s actions and reloads of the audit file, running supervisor or not: time, action and upstream, outcome (done, refused; a sign-in\'s started, signed-in, failed, cancelled), who asked, what hangar said.',
		],
		flags: ['config', 'state-dir', 'log-level', 'follow', 'calls', 'actions', 'json'],
		examples: [`mcp-hangar logs demo -f --config ${demoConfigPath}`, `mcp-hangar logs --calls -f --config ${demoConfigPath}`],
	},
	{
		name: 'reload',
		usage: ['mcp-hangar reload [options]'],
		summary: "Apply the config file's changes to the running supervisor now",
		details: ['A running supervisor also reloads by itself when the file changes. A file that does not validate is refused (exit 1) and the running config stays.'],
		flags: ['config', 'state-dir', 'log-level'],
		examples: ['mcp-hangar reload --config ~/mcp-hangar.json'],
	},
	{
		name: 'auth',
		usage: ['mcp-hangar auth SERVER [--no-browser | --logout] [options]'],
		summary: 'Sign in to a remote upstream that asks for OAuth, once for every client of this hangar',
		details: [
			'Finds the upstream\'s authorization server, registers hangar with it when needed, and opens the browser at its sign-in page ($BROWSER when set; over ssh or without a display it prints the URL to open instead). The browser comes back to a listener on 127.0.0.1.',
			'The tokens go into STATE_DIR/oauth-tokens.json (owner-only), or the OS keychain with hangar.tokenStore "keychain"; a running supervisor starts the upstream with them at once, and refreshes them before they expire.',
			'--logout forgets the tokens and the registration, and stops the running upstream (it then needs sign-in).',
		],
		flags: ['config', 'state-dir', 'log-level', 'logout', 'browser'],
		examples: ['mcp-hangar auth linear', 'mcp-hangar auth linear --no-browser', 'mcp-hangar auth linear --logout'],
	},
	{
		name: 'shutdown',
		usage: ['mcp-hangar shutdown [--yes] [options]'],
		summary: 'Stop the supervisor running this config (a TUI, a serve, or the daemon a client started) and its upstreams',
		details: [
			'With MCP clients attached it asks first on a terminal, and refuses elsewhere unless --yes (they lose its tools).',
			'When it was the daemon a client started, clients started with mcp-hangar --stdio start a new one at once: to stop for good, close them too.',
			'When a person started it (tui, serve), its clients start none: their calls wait and then fail with -32012 until it is started again.',
			'With none running it says so and exits 0.',
		],
		flags: ['config', 'state-dir', 'log-level', 'yes'],
		examples: ['mcp-hangar shutdown --config ~/mcp-hangar.json', 'mcp-hangar shutdown --yes'],
	},
	{
		name: 'import',
		usage: ['mcp-hangar import [CLIENT|all|FILE] [--dry-run] [--config PATH]'],
		summary: "Copy other MCP clients' servers into hangar's config",
		details: [
			'With no argument: find every client config on this machine (and in this directory) and list what',
			'would be imported, from where; nothing is written. CLIENT is one of:',
			`  ${clientList}`,
			'"all" imports from every client found; FILE reads one file in any of their formats.',
			'Names hangar cannot use (github.com/owner/repo) are made valid, a server configured in two clients',
			'is imported once, and a name already in the config is never overwritten. env and header values are',
			'copied, never printed. Keys hangar has no use for are dropped, each with a note.',
		],
		flags: ['config', 'dry-run'],
		examples: ['mcp-hangar import', 'mcp-hangar import claude-desktop --dry-run', 'mcp-hangar import all', 'mcp-hangar import ./.vscode/mcp.json --config ./mcp-hangar.json'],
	},
	{
		name: 'setup',
		usage: ['mcp-hangar setup CLIENT [--undo] [--dry-run] [--config PATH]'],
		summary: "Point a client at hangar: its servers replaced by one hangar entry",
		details: [
			"Rewrites CLIENT's user config file (VS Code: mcp.json, and settings.json's servers) so that it launches mcp-hangar --stdio --config PATH (as absolute",
			'paths of node and dist/cli.js, so it works from a desktop app) instead of its own servers. Refuses while one of them is not in',
			"hangar's config: run mcp-hangar import CLIENT first. A timestamped backup is written beside each file it changes;",
			'--undo puts it back byte for byte. CLIENT is one of:',
			`  ${clientList}`,
		],
		flags: ['config', 'dry-run', 'undo'],
		examples: ['mcp-hangar import cursor && mcp-hangar setup cursor', 'mcp-hangar setup cursor --undo'],
	},
	{
		name: 'add',
		usage: ['mcp-hangar add NAME [--env K=V]... [--config PATH] -- COMMAND [ARGS...]', 'mcp-hangar add NAME --url URL [--header "K: V"]... [--config PATH]'],
		summary: "Add a server to hangar's config",
		details: [
			'Edits the config in place (everything else stays as written), validated before it is written.',
			"Put a ${VAR} in single quotes, so that the shell passes it as written: hangar expands it where it runs.",
		],
		flags: ['config', 'env', 'url', 'header'],
		examples: [
			'mcp-hangar add memory --env MEMORY_FILE_PATH=/tmp/memory.jsonl -- npx -y @modelcontextprotocol/server-memory',
			"mcp-hangar add docs --url https://example.com/mcp --header 'Authorization: Bearer ${DOCS_TOKEN}'",
		],
	},
	{
		name: 'remove',
		usage: ['mcp-hangar remove NAME [--config PATH]'],
		summary: "Remove a server from hangar's config",
		details: ['Edits the config in place; everything else stays as written.'],
		flags: ['config'],
		examples: ['mcp-hangar remove memory'],
	},
	{
		name: 'help',
		usage: ['mcp-hangar help [COMMAND]'],
		summary: "Print the help, or one command's",
		details: [],
		flags: [],
		examples: ['mcp-hangar help import'],
	},
];

export const verbNames = commandHelps.map(help => help.name);

function flagLines(names: readonly string[]): string[] {
	const rows = names.map(name => flagHelp[name]!);
	const width = Math.max(...rows.map(([flag]) => flag!.length));
	return rows.map(([flag, text]) => `  ${flag!.padEnd(width)}  ${text}`);
}

/** One command's help. */
export function commandHelpText(name: string): string {
	const help = commandHelps.find(entry => entry.name === name)!;
	const lines = [
		'Usage',
		...help.usage.map(usage => `  $ ${usage}`),
		'',
		`${help.summary}.`,
		...(help.details.length > 0 ? ['', ...help.details] : []),
		...(help.flags.length > 0 ? ['', 'Options', ...flagLines([...help.flags, 'help'])] : []),
		...(help.examples.length > 0 ? ['', 'Examples', ...help.examples.map(example => `  $ ${example}`)] : []),
	];
	return `${lines.join('\n')}\n`;
}

/** The overview: every command, every flag, examples, and how to add hangar to a client. */
export function generalHelpText(): string {
	const usages: Array<[string, string]> = [
		['mcp-hangar --stdio [options]', "Serve every upstream's tools as one MCP server on stdin/stdout"],
		// Every form of each command, as docs/cli.md lists them; the summary beside the first.
		...commandHelps.flatMap(help => help.usage.map((usage, index): [string, string] => [usage, index === 0 ? help.summary : ''])),
		['mcp-hangar --check-config [options]', 'Validate the config file and exit (non-zero on errors)'],
	];
	const width = 40;
	const lines = [
		'Usage',
		...usages.map(([usage, summary]) => (summary === '' ? `  $ ${usage}` : usage.length + 2 <= width ? `  $ ${usage.padEnd(width)}${summary}` : `  $ ${usage}\n    ${' '.repeat(width)}${summary}`)),
		'',
		'Options',
		...flagLines(Object.keys(flagHelp)),
		'',
		'Examples',
		'  $ mcp-hangar import                      (what would come from the clients on this machine)',
		'  $ mcp-hangar import claude-desktop && mcp-hangar setup claude-desktop',
		`  $ mcp-hangar tui --config ${demoConfigPath} --demo-traffic flaky-demo/echo`,
		`  $ mcp-hangar call demo echo --args '{"message":"hi"}' --config ${demoConfigPath}`,
		'',
		'Run mcp-hangar help COMMAND (or mcp-hangar COMMAND --help) for one command, with examples.',
	];
	return `${lines.join('\n')}\n`;
}
