#!/usr/bin/env node
/**
 * A probe upstream for tests of what hangar does with the requests an
 * upstream sends its client (sampling, elicitation, roots) when several
 * clients share it: it asks during calls, outside calls and at start-up,
 * and it reports the client capabilities it was told at initialize exactly
 * as they came over the wire. Built on the SDK's low-level `Server`, over
 * stdio, or over Streamable HTTP with `--http PORT` (then each request is
 * sent on its call's own event stream, as an SDK server does).
 *
 * Tools:
 * - `ask {kind, tag?}`: sends its client sampling/createMessage,
 *   elicitation/create or roots/list during the call and returns
 *   `{tag, result}` or `{tag, error}`.
 * - `client-capabilities`: the `capabilities` of the initialize request as
 *   received (raw JSON), the clientInfo and the protocolVersion asked for.
 * - `outside`: the outcome of each request it sent outside any call (at
 *   start-up with `--ask-at-start KIND`, `--ask-delay MS` after initialized,
 *   or `outside-now {kind}`).
 * - `outside-now {kind}`: sends a request outside the call: not tied to it
 *   (stdio ties nothing; over HTTP it goes on the session's own stream),
 *   after the call is answered.
 * - `pid`: its process id (to tell instances apart).
 * - `ask-url {elicitationId, url}`: a URL-mode elicitation during the call;
 *   once its client answered, `notifications/elicitation/complete` for it.
 * - `sample-with-tools {tag}`: sampling that offers the model a tool
 *   (`tools`, `toolChoice`), then, when the answer is a `tool_use`, a second
 *   round with its `tool_result`; returns both answers (or the SDK's refusal).
 */
import http from 'node:http';
import {randomUUID} from 'node:crypto';
import {parseArgs} from 'node:util';
import {Server, WebStandardStreamableHTTPServerTransport, type JSONRPCMessage, type Tool, type Transport} from '@modelcontextprotocol/server';
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio';
import {z} from 'zod';
import {sendWebResponse, webRequest} from './web-http.js';

const {values: args} = parseArgs({
	options: {
		'ask-at-start': {type: 'string'},
		'ask-delay': {type: 'string'},
		http: {type: 'string'},
	},
});

type Kind = 'sampling' | 'elicitation' | 'roots';
const kinds: readonly Kind[] = ['sampling', 'elicitation', 'roots'];
const anyResult = z.object({}).passthrough();

function requestOf(kind: Kind, tag: string): {method: string; params: Record<string, unknown>} {
	switch (kind) {
		case 'sampling': {
			return {method: 'sampling/createMessage', params: {messages: [{role: 'user', content: {type: 'text', text: `probe ${tag}`}}], maxTokens: 10}};
		}

		case 'elicitation': {
			return {method: 'elicitation/create', params: {message: `probe ${tag}`, requestedSchema: {type: 'object', properties: {name: {type: 'string'}}}}};
		}

		case 'roots': {
			return {method: 'roots/list', params: {}};
		}
	}
}

const tools: Tool[] = [
	{name: 'ask', description: 'Ask the client (sampling, elicitation or roots) during this call.', inputSchema: {type: 'object' as const, properties: {kind: {type: 'string', enum: [...kinds]}, tag: {type: 'string'}}, required: ['kind']}},
	{name: 'client-capabilities', description: 'The client capabilities of initialize, as received.', inputSchema: {type: 'object' as const}},
	{name: 'outside', description: 'Outcomes of the requests sent outside any call.', inputSchema: {type: 'object' as const}},
	{name: 'outside-now', description: 'Send a request outside any call, after answering.', inputSchema: {type: 'object' as const, properties: {kind: {type: 'string', enum: [...kinds]}}, required: ['kind']}},
	{name: 'pid', description: 'This process id.', inputSchema: {type: 'object' as const}},
	{name: 'ask-url', description: 'A URL-mode elicitation during this call, then its completion.', inputSchema: {type: 'object' as const, properties: {elicitationId: {type: 'string'}, url: {type: 'string'}}, required: ['elicitationId', 'url']}},
	{name: 'sample-with-tools', description: 'Sampling with a tool offered, and a second round with its result.', inputSchema: {type: 'object' as const, properties: {tag: {type: 'string'}}}},
];

/** The tool the probe offers the model in `sample-with-tools`. */
const lookupTool = {name: 'lookup', description: 'Looks a word up.', inputSchema: {type: 'object' as const, properties: {word: {type: 'string'}}, required: ['word']}};

/** One MCP session of the probe (stdio has one; HTTP one per client session). */
function session(): {server: Server; watch: (transport: Transport) => void} {
	const server = new Server({name: 'probe', version: '1.0.0'}, {capabilities: {tools: {}}, instructions: 'Probe: call ask to make me ask you something.'});
	let rawInitialize: Record<string, unknown> | undefined;
	const outside: Array<{kind: string; at: string; result?: unknown; error?: unknown}> = [];

	const askOutside = (kind: Kind, at: string): void => {
		const {method, params} = requestOf(kind, at);
		server.request({method, params} as never, anyResult).then(
			result => outside.push({kind, at, result}),
			(error: unknown) => outside.push({kind, at, error: {code: (error as {code?: unknown}).code, message: (error as Error).message}}),
		);
	};

	server.setRequestHandler('tools/list', () => ({tools}));
	server.setRequestHandler('tools/call', async (request, ctx) => {
		const input = request.params.arguments ?? {};
		const json = (value: unknown) => ({content: [{type: 'text' as const, text: JSON.stringify(value)}], structuredContent: value as Record<string, unknown>});
		switch (request.params.name) {
			case 'ask': {
				const kind = input['kind'] as Kind;
				const tag = typeof input['tag'] === 'string' ? input['tag'] : '';
				const {method, params} = requestOf(kind, tag);
				try {
					// ctx.mcpReq.send ties it to this call (over HTTP: the call's own event stream).
					return json({tag, result: await ctx.mcpReq.send({method, params}, anyResult)});
				} catch (error) {
					return json({tag, error: {code: (error as {code?: unknown}).code, message: (error as Error).message}});
				}
			}

			case 'client-capabilities': {
				return json({capabilities: rawInitialize?.['capabilities'] ?? null, clientInfo: rawInitialize?.['clientInfo'] ?? null, protocolVersion: rawInitialize?.['protocolVersion'] ?? null});
			}

			case 'outside': {
				return json({outside});
			}

			case 'outside-now': {
				setTimeout(() => askOutside(input['kind'] as Kind, 'outside-now'), 20);
				return json({sent: true});
			}

			case 'pid': {
				return json({pid: process.pid});
			}

			case 'ask-url': {
				const elicitationId = String(input['elicitationId']);
				const params = {mode: 'url', elicitationId, url: String(input['url']), message: 'Open the link to go on.'};
				try {
					const result = await ctx.mcpReq.send({method: 'elicitation/create', params} as never, anyResult);
					await server.createElicitationCompletionNotifier(elicitationId, {relatedRequestId: ctx.mcpReq.id})();
					return json({result});
				} catch (error) {
					return json({error: {code: (error as {code?: unknown}).code, message: (error as Error).message}});
				}
			}

			case 'sample-with-tools': {
				const tag = typeof input['tag'] === 'string' ? input['tag'] : '';
				const question = {role: 'user' as const, content: {type: 'text' as const, text: `probe ${tag}: look up "hangar"`}};
				try {
					const first = await server.createMessage({messages: [question], maxTokens: 50, tools: [lookupTool], toolChoice: {mode: 'auto'}}, {relatedRequestId: ctx.mcpReq.id});
					const content = Array.isArray(first.content) ? first.content : [first.content];
					const uses = content.filter(block => block.type === 'tool_use');
					if (uses.length === 0) return json({tag, first});
					const results = uses.map(use => ({type: 'tool_result' as const, toolUseId: use.id, content: [{type: 'text' as const, text: `definition of ${JSON.stringify(use.input)}`}]}));
					const second = await server.createMessage(
						{messages: [question, {role: 'assistant', content: uses}, {role: 'user', content: results}], maxTokens: 50, tools: [lookupTool], toolChoice: {mode: 'none'}},
						{relatedRequestId: ctx.mcpReq.id},
					);
					return json({tag, first, second});
				} catch (error) {
					return json({tag, error: {code: (error as {code?: unknown}).code, message: (error as Error).message}});
				}
			}

			default: {
				throw new Error(`unknown tool ${request.params.name}`);
			}
		}
	});

	server.oninitialized = () => {
		const kind = args['ask-at-start'];
		if (kind === undefined || !(kinds as readonly string[]).includes(kind)) return;
		// --ask-delay MS: a while after initialized, as server-everything asks for roots 350 ms after it.
		const delay = Number(args['ask-delay'] ?? 0);
		if (delay > 0) setTimeout(() => askOutside(kind as Kind, 'start-up'), delay);
		else askOutside(kind as Kind, 'start-up');
	};

	return {
		server,
		// The initialize request as it came over the wire, before the SDK parses it.
		watch(transport) {
			const sdk = transport.onmessage;
			transport.onmessage = (message: JSONRPCMessage, extra) => {
				const record = message as {method?: unknown; params?: Record<string, unknown>};
				if (record.method === 'initialize') rawInitialize = structuredClone(record.params);
				sdk?.(message, extra);
			};
		},
	};
}

if (args.http === undefined) {
	const {server, watch} = session();
	const transport = new StdioServerTransport();
	await server.connect(transport);
	watch(transport);
} else {
	const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
	const httpServer = http.createServer(async (request, response) => {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const body = chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
		const id = request.headers['mcp-session-id'];
		let transport: WebStandardStreamableHTTPServerTransport | undefined = typeof id === 'string' ? transports.get(id) : undefined;
		if (transport === undefined) {
			const {server, watch} = session();
			const created: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
				sessionIdGenerator: () => randomUUID(),
				onsessioninitialized(sessionId: string): void {
					transports.set(sessionId, created);
				},
			});
			transport = created;
			await server.connect(created);
			watch(created);
		}

		await sendWebResponse(response, await transport.handleRequest(webRequest(request, response), body === undefined ? {} : {parsedBody: body}));
	});
	httpServer.listen(Number(args.http), '127.0.0.1', () => {
		const address = httpServer.address();
		process.stderr.write(`probe listening on http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : args.http}/mcp\n`);
	});
}
