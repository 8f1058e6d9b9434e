#!/usr/bin/env node
/**
 * A 2026-07-28 upstream for tests of hangar's modern mode toward upstreams
 * (issue 31): built on the v2 SDK's `McpServer` behind `serveStdio`, which
 * owns the era decision per connection. `--legacy reject` makes it
 * modern-only (a 2025 `initialize` is refused with the
 * unsupported-protocol-version error); `--legacy serve` (the default) makes
 * it dual-era, as every v2 server is unless told otherwise.
 *
 * Tools:
 * - `echo {message}`: "Echo: message".
 * - `confirm {action}`: on the 2026-07-28 era, answers `input_required` with
 *   a form elicitation (`inputRequests.confirm`) and an opaque
 *   `requestState`; on the retry it checks the state came back unchanged and
 *   returns what the client answered. On the 2025 era it sends
 *   `elicitation/create` the old way.
 * - `era`: the protocol version of the request it is serving.
 * - `pid`: its process id.
 * - `add-tool {name}`: registers a tool `name` (it answers "added"), so its
 *   tool list changes: `notifications/tools/list_changed`, which a
 *   2026-07-28 client receives on its `subscriptions/listen` stream.
 * - `bump`: changes the resource `demo://counter` (its text is a count) and
 *   sends `notifications/resources/updated` for it.
 * - `log {message}`: sends `message` as an `info` log message during the call.
 *
 * Resources: `demo://counter`. It declares `tools.listChanged`, `resources`
 * with `subscribe` and `listChanged`, and `logging`.
 *
 * `--modern-tool NAME` registers one more tool, `NAME` (it answers "NAME"),
 * on its 2026-07-28 path only, as a dual-era server may expose different
 * things on its two paths (the conformance reference server does).
 *
 * `--starts-file PATH` appends one line per start (a test counts spawns);
 * `--version V` is the version in its serverInfo; `--cache-ttl MS` and
 * `--cache-scope public|private` are the caching hints of its lists (the
 * SDK's `cacheHints`; without them it says `ttlMs: 0`, `private`).
 */
import {appendFileSync} from 'node:fs';
import {parseArgs} from 'node:util';
import {McpServer, acceptedContent, inputRequired, type McpServerOptions} from '@modelcontextprotocol/server';
import {serveStdio} from '@modelcontextprotocol/server/stdio';
import {z} from 'zod';

const {values: args} = parseArgs({
	options: {
		legacy: {type: 'string', default: 'serve'},
		'starts-file': {type: 'string'},
		'modern-tool': {type: 'string'},
		version: {type: 'string', default: '1.0.0'},
		'cache-ttl': {type: 'string'},
		'cache-scope': {type: 'string'},
	},
	allowPositionals: true,
	strict: false,
});

const startsFile = args['starts-file'];
if (typeof startsFile === 'string') appendFileSync(startsFile, `${process.pid}\n`);

/** What the server puts in requestState: hangar must hand it back byte for byte. */
const stateFor = (action: string) => `opaque:${Buffer.from(action).toString('base64')}:v1`;

/** The revision a request speaks: its envelope's, or the 2025 session's when it has none. */
function eraOf(envelope: Record<string, unknown> | undefined): string {
	const version = envelope?.['io.modelcontextprotocol/protocolVersion'];
	return typeof version === 'string' ? version : '2025';
}

/** The caching hints of its lists, as the command line gives them. */
function cacheHints(): McpServerOptions['cacheHints'] {
	const ttl = args['cache-ttl'];
	const scope = args['cache-scope'];
	if (typeof ttl !== 'string' && typeof scope !== 'string') return undefined;
	const hint = {...(typeof ttl === 'string' ? {ttlMs: Number(ttl)} : {}), ...(scope === 'public' || scope === 'private' ? {cacheScope: scope as 'public' | 'private'} : {})};
	return {'tools/list': hint, 'prompts/list': hint, 'resources/list': hint, 'resources/templates/list': hint};
}

/** The count `bump` raises; `demo://counter` reads it. */
let counter = 0;
const counterUri = 'demo://counter';

function build({era}: {era: string}): McpServer {
	const server = new McpServer(
		{name: 'modern-fixture', version: String(args.version)},
		{capabilities: {tools: {listChanged: true}, resources: {subscribe: true, listChanged: true}, logging: {}}, cacheHints: cacheHints()},
	);
	server.registerResource('counter', counterUri, {description: 'A count that bump raises.', mimeType: 'text/plain'}, async () => ({
		contents: [{uri: counterUri, mimeType: 'text/plain', text: String(counter)}],
	}));
	server.registerTool('add-tool', {description: 'Registers a tool of that name: the tool list changes.', inputSchema: z.object({name: z.string()})}, async ({name}) => {
		server.registerTool(name, {description: `Added by add-tool.`, inputSchema: z.object({})}, async () => ({content: [{type: 'text', text: name}]}));
		return {content: [{type: 'text', text: 'added'}]};
	});
	server.registerTool('bump', {description: `Raises the count of ${counterUri} and says it changed.`, inputSchema: z.object({})}, async () => {
		counter += 1;
		await server.server.sendResourceUpdated({uri: counterUri});
		return {content: [{type: 'text', text: String(counter)}]};
	});
	server.registerTool('log', {description: 'Sends its message as an info log message.', inputSchema: z.object({message: z.string()})}, async ({message}, ctx) => {
		await ctx.mcpReq.log('info', message);
		return {content: [{type: 'text', text: 'logged'}]};
	});
	server.registerTool('echo', {description: 'Echoes its message.', inputSchema: z.object({message: z.string()})}, async ({message}) => ({
		content: [{type: 'text', text: `Echo: ${message}`}],
	}));
	server.registerTool('era', {description: 'The protocol version of this request.', inputSchema: z.object({})}, async (_args, ctx) => ({
		content: [{type: 'text', text: eraOf(ctx.mcpReq.envelope)}],
	}));
	const modernTool = args['modern-tool'];
	if (era === 'modern' && typeof modernTool === 'string') server.registerTool(modernTool, {description: 'Listed on its 2026-07-28 path only.', inputSchema: z.object({})}, async () => ({content: [{type: 'text', text: modernTool}]}));
	server.registerTool('pid', {description: 'Its process id.', inputSchema: z.object({})}, async () => ({content: [{type: 'text', text: String(process.pid)}]}));
	const answer = z.object({ok: z.boolean()});
	const requestedSchema = {type: 'object' as const, properties: {ok: {type: 'boolean' as const}}, required: ['ok']};
	server.registerTool('confirm', {description: 'Asks its client to confirm an action.', inputSchema: z.object({action: z.string()})}, async ({action}, ctx) => {
		if (eraOf(ctx.mcpReq.envelope) !== '2026-07-28') {
			const result = await ctx.mcpReq.elicitInput({message: `Do ${action}?`, requestedSchema});
			return {content: [{type: 'text', text: `legacy ${result.action}: ${JSON.stringify(result.content ?? null)}`}]};
		}

		const responses = ctx.mcpReq.inputResponses;
		if (responses === undefined) {
			return inputRequired({inputRequests: {confirm: inputRequired.elicit({message: `Do ${action}?`, requestedSchema})}, requestState: stateFor(action)});
		}

		const state = ctx.mcpReq.requestState<string>();
		if (state !== stateFor(action)) return {content: [{type: 'text', text: `requestState changed: ${String(state)}`}], isError: true};
		const content = acceptedContent(responses, 'confirm', answer);
		const raw = responses['confirm'] as {action?: string} | undefined;
		return {content: [{type: 'text', text: content === undefined ? `not accepted: ${raw?.action ?? 'no answer'}` : `confirmed ${action}: ${content.ok}`}]};
	});
	return server;
}

serveStdio(build, {legacy: args.legacy === 'reject' ? 'reject' : 'serve'});
