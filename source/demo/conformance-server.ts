/**
 * An MCP server that implements every server scenario of the official MCP
 * conformance suite (@modelcontextprotocol/conformance 0.1.16), so that the
 * suite can be run against hangar with this server behind it, and against
 * this server directly to show the suite's expectations can be met at all.
 * The suite ships no reference server; what it calls and checks is defined in
 * its dist/index.js, and this server follows those definitions to the letter.
 *
 *   node dist/demo/conformance-server.js                  MCP over stdio (how hangar runs it)
 *   node dist/demo/conformance-server.js --http --port N  Streamable HTTP at http://127.0.0.1:N/mcp
 *                                                         (0: any free port; the URL is printed
 *                                                         on stderr as "listening on URL")
 *
 * It is written with the SDK's low-level Server, not McpServer, because the
 * json-schema-2020-12 scenario needs an input schema passed on verbatim
 * ($schema, $defs, additionalProperties), which McpServer's zod-only tools
 * cannot declare. Everything a tool sends while it runs (progress, log
 * messages, sampling and elicitation requests) goes through the handler's
 * `extra.sendNotification` / `extra.sendRequest`, which tie it to the call
 * being handled: over Streamable HTTP it then travels on that call's own SSE
 * stream, and a proxy in front can route it back to the caller.
 *
 * What serves which scenario:
 *   server-initialize, ping, tools-list   the SDK's initialize and ping; every tool below has a description
 *   logging-set-level                     logging/setLevel (level kept per session, filters log messages)
 *   completion-complete                   completion/complete for test_prompt_with_arguments (arg1, arg2)
 *                                         and the template test://template/{id}/data (id)
 *   tools-call-simple-text                tool test_simple_text
 *   tools-call-image                      tool test_image_content (a 1x1 red PNG)
 *   tools-call-audio                      tool test_audio_content (a short silent WAV)
 *   tools-call-embedded-resource          tool test_embedded_resource (test://embedded-resource)
 *   tools-call-mixed-content              tool test_multiple_content_types (text, image, test://mixed-content-resource)
 *   tools-call-with-logging               tool test_tool_with_logging (3 info messages, 50 ms apart)
 *   tools-call-error                      tool test_error_handling (isError: true)
 *   tools-call-with-progress              tool test_tool_with_progress (0, 50, 100 of 100, 50 ms apart)
 *   tools-call-sampling                   tool test_sampling {prompt} (sampling/createMessage to the client)
 *   tools-call-elicitation                tool test_elicitation {message} (elicitation/create: username, email)
 *   elicitation-sep1034-defaults          tool test_elicitation_sep1034_defaults (a default for each primitive type)
 *   elicitation-sep1330-enums             tool test_elicitation_sep1330_enums (the five enum shapes)
 *   json-schema-2020-12 (pending)         tool json_schema_2020_12_tool ($schema, $defs, additionalProperties)
 *   server-sse-polling (pending)          tool test_reconnection
 *   resources-list                        test://static-text, test://static-binary, test://watched-resource
 *   resources-read-text                   resource test://static-text
 *   resources-read-binary                 resource test://static-binary (the PNG as a blob)
 *   resources-templates-read              template test://template/{id}/data
 *   resources-subscribe, -unsubscribe     resources/subscribe and /unsubscribe of test://watched-resource
 *   prompts-list                          the four prompts below, each with a description
 *   prompts-get-simple                    prompt test_simple_prompt
 *   prompts-get-with-args                 prompt test_prompt_with_arguments {arg1, arg2}
 *   prompts-get-embedded-resource         prompt test_prompt_with_embedded_resource {resourceUri}
 *   prompts-get-with-image                prompt test_prompt_with_image
 *   server-sse-multiple-streams           HTTP mode: stateful sessions, each POST answered on its own SSE stream
 *   dns-rebinding-protection              HTTP mode: a Host or Origin that is not this loopback address gets 403
 *
 * It exits when stdin ends (when stdin is a pipe, in either mode) and on
 * SIGTERM or SIGINT, so it never outlives the process that started it.
 */
import fs from 'node:fs';
import {parseArgs} from 'node:util';
import {LoggingLevelSchema} from '@modelcontextprotocol/core';
import {
	ProtocolError,
	ProtocolErrorCode,
	Server,
	type CallToolResult,
	type ElicitRequestFormParams,
	type LoggingLevel,
} from '@modelcontextprotocol/server';
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio';
import {serveSessions} from './web-http.js';
import {redPixelPng, silentWav, text, delay, tools, elicitationForms, resources, templateUri, readResource, prompts, getPrompt, completions} from './conformance/catalog.js';

const serverInfo = {name: 'hangar-conformance-fixture', version: '1.0.0'};


// ---------------------------------------------------------------------------
// The server

/**
 * One MCP server with its own state (the log level): one for the stdio
 * connection, one per Streamable HTTP session.
 */
function createConformanceServer(): Server {
	const server = new Server(serverInfo, {
		capabilities: {
			tools: {},
			prompts: {},
			resources: {subscribe: true},
			completions: {},
			logging: {},
		},
	});

	// Undefined until the client sets a level: until then every message is sent.
	let minimumLevel: LoggingLevel | undefined;
	const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);

	// Replaces the SDK's own handler so the level is this session's, read
	// where tools log through `extra` (the SDK's filter only covers
	// server.sendLoggingMessage, which is not tied to a request).
	server.setRequestHandler('logging/setLevel', async request => {
		minimumLevel = request.params.level;
		return {};
	});

	server.setRequestHandler('tools/list', async () => ({tools}));

	server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
		const {name} = request.params;
		const args = request.params.arguments ?? {};
		const log = async (level: LoggingLevel, data: string) => {
			if (minimumLevel !== undefined && severity(level) < severity(minimumLevel)) return;
			await ctx.mcpReq.notify({method: 'notifications/message', params: {level, logger: serverInfo.name, data}});
		};

		const elicit = async (requestedSchema: ElicitRequestFormParams['requestedSchema'], message: string) => {
			if (server.getClientCapabilities()?.elicitation === undefined) return undefined;
			return ctx.mcpReq.send({method: 'elicitation/create', params: {message, requestedSchema}});
		};

		const noElicitation: CallToolResult = {isError: true, content: [text(`${name} needs elicitation, and the client declared no elicitation capability at initialize.`)]};

		switch (name) {
			case 'test_simple_text':
				return {content: [text('This is a simple text response for testing.')]};
			case 'test_image_content':
				return {content: [{type: 'image', data: redPixelPng, mimeType: 'image/png'}]};
			case 'test_audio_content':
				return {content: [{type: 'audio', data: silentWav(), mimeType: 'audio/wav'}]};
			case 'test_embedded_resource':
				return {content: [{type: 'resource', resource: {uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.'}}]};
			case 'test_multiple_content_types':
				return {
					content: [
						text('Multiple content types test:'),
						{type: 'image', data: redPixelPng, mimeType: 'image/png'},
						{type: 'resource', resource: {uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({test: 'data', value: 123})}},
					],
				};
			case 'test_tool_with_logging':
				await log('info', 'Tool execution started');
				await delay(50);
				await log('info', 'Tool processing data');
				await delay(50);
				await log('info', 'Tool execution completed');
				return {content: [text('Tool with logging executed successfully: sent 3 log messages.')]};
			case 'test_error_handling':
				return {isError: true, content: [text('This tool intentionally returns an error for testing')]};
			case 'test_tool_with_progress': {
				const progressToken = request.params._meta?.progressToken;
				for (const [index, progress] of [0, 50, 100].entries()) {
					if (index > 0) await delay(50);
					if (progressToken !== undefined) await ctx.mcpReq.notify({method: 'notifications/progress', params: {progressToken, progress, total: 100}});
				}

				return {content: [text(`Tool with progress executed successfully${progressToken === undefined ? ' (no progress token, so no progress was reported)' : ''}.`)]};
			}

			case 'test_sampling': {
				if (typeof args.prompt !== 'string') return {isError: true, content: [text('test_sampling needs the argument prompt (a string).')]};
				if (server.getClientCapabilities()?.sampling === undefined) {
					return {isError: true, content: [text('test_sampling needs sampling, and the client declared no sampling capability at initialize.')]};
				}

				const result = await ctx.mcpReq.send({method: 'sampling/createMessage', params: {messages: [{role: 'user', content: text(args.prompt)}], maxTokens: 100}});
				const content = Array.isArray(result.content) ? result.content[0] : result.content;
				const answer = content?.type === 'text' ? content.text : JSON.stringify(result.content);
				return {content: [text(`LLM response: ${answer}`)]};
			}

			case 'test_elicitation': {
				if (typeof args.message !== 'string') return {isError: true, content: [text('test_elicitation needs the argument message (a string).')]};
				const result = await elicit(elicitationForms.test_elicitation!, args.message);
				if (result === undefined) return noElicitation;
				return {content: [text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)]};
			}

			case 'test_elicitation_sep1034_defaults':
			case 'test_elicitation_sep1330_enums': {
				const message = name === 'test_elicitation_sep1034_defaults' ? 'Please review and update the form fields with defaults' : 'Please choose from the enum fields';
				const result = await elicit(elicitationForms[name]!, message);
				if (result === undefined) return noElicitation;
				return {content: [text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)]};
			}

			case 'json_schema_2020_12_tool':
				return {content: [text(`Received: ${JSON.stringify(args)}`)]};
			case 'test_reconnection':
				// Over HTTP the SDK offers closeSSEStream only with an event store and
				// a client at protocol 2025-11-25 or later; the suite's polling client
				// announces 2025-03-26, so this answers on the open stream.
				ctx.http?.closeSSE?.();
				await delay(100);
				return {content: [text('Reconnection test completed successfully')]};
			default:
				throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. This server has ${tools.map(tool => tool.name).join(', ')}.`);
		}
	});

	server.setRequestHandler('resources/list', async () => ({resources}));
	server.setRequestHandler('resources/templates/list', async () => ({
		resourceTemplates: [{uriTemplate: templateUri, name: 'template-data', description: 'Data for any id (conformance: resources-templates-read).', mimeType: 'application/json'}],
	}));
	server.setRequestHandler('resources/read', async request => readResource(request.params.uri));
	// These resources never change, so a subscription never brings an update;
	// subscribing to one that does not exist is refused, as reading it would be.
	server.setRequestHandler('resources/subscribe', async request => {
		readResource(request.params.uri);
		return {};
	});
	server.setRequestHandler('resources/unsubscribe', async () => ({}));

	server.setRequestHandler('prompts/list', async () => ({prompts}));
	server.setRequestHandler('prompts/get', async request => getPrompt(request.params.name, request.params.arguments ?? {}));

	server.setRequestHandler('completion/complete', async request => {
		const {ref, argument} = request.params;
		const key = `${ref.type === 'ref/prompt' ? ref.name : ref.uri}/${argument.name}`;
		const values = (completions[key] ?? []).filter(value => value.startsWith(argument.value));
		return {completion: {values, total: values.length, hasMore: false}};
	});

	return server;
}

// ---------------------------------------------------------------------------
// Streamable HTTP

/** Serves stateful Streamable HTTP sessions at /mcp on 127.0.0.1, each with its own server; resolves with the URL once listening. */
async function serveHttp(port: number): Promise<string> {
	return (await serveSessions(port, async transport => createConformanceServer().connect(transport), 'conformance-server')).url;
}

// ---------------------------------------------------------------------------
// Entry point

function usageError(message: string): never {
	process.stderr.write(`conformance-server: ${message}\nUsage: conformance-server.js [--http [--port N]]\n`);
	process.exit(2);
}

function options(): {http: boolean; port: number} {
	let values;
	try {
		values = parseArgs({options: {http: {type: 'boolean', default: false}, port: {type: 'string', default: '0'}}, strict: true, allowPositionals: false}).values;
	} catch (error) {
		usageError(error instanceof Error ? error.message : String(error));
	}

	const port = Number(values.port);
	if (!/^\d+$/.test(values.port) || port > 65_535) usageError(`--port must be a whole number from 0 to 65535 (0: any free port), got ${values.port}`);
	return {http: values.http, port};
}

/** Whether stdin is a pipe or socket: its end then means the parent is gone (a terminal or /dev/null says nothing). */
function stdinIsPipe(): boolean {
	try {
		const stat = fs.fstatSync(0);
		return stat.isFIFO() || stat.isSocket();
	} catch {
		return false;
	}
}

async function main(): Promise<void> {
	const {http: overHttp, port} = options();
	for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));

	if (overHttp) {
		if (stdinIsPipe()) {
			process.stdin.on('end', () => process.exit(0));
			process.stdin.resume();
		}

		const url = await serveHttp(port);
		process.stderr.write(`listening on ${url}\n`);
		return;
	}

	process.stdin.on('end', () => process.exit(0));
	await createConformanceServer().connect(new StdioServerTransport());
}

main().catch((error: unknown) => {
	process.stderr.write(`conformance-server: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
