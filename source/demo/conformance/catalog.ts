/**
 * What the conformance server serves: its content (text, image, audio), its tools
 * and the elicitation forms they ask for, its resources, template and prompts, and
 * the completion values: each named for the conformance scenario that checks it.
 */
import {ProtocolErrorCode, ProtocolError, ResourceNotFoundError, type ElicitRequestFormParams, type GetPromptResult, type ReadResourceResult, type Tool} from '@modelcontextprotocol/server';

// ---------------------------------------------------------------------------
// Content

/** A 1x1 red pixel. */
export const redPixelPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** A valid WAV file of `samples` silent 8-bit mono samples at 8 kHz, base64. */
export function silentWav(samples = 800): string {
	const header = Buffer.alloc(44);
	header.write('RIFF', 0, 'ascii');
	header.writeUInt32LE(36 + samples, 4);
	header.write('WAVEfmt ', 8, 'ascii');
	header.writeUInt32LE(16, 16); // fmt chunk size
	header.writeUInt16LE(1, 20); // PCM
	header.writeUInt16LE(1, 22); // mono
	header.writeUInt32LE(8000, 24); // sample rate
	header.writeUInt32LE(8000, 28); // byte rate
	header.writeUInt16LE(1, 32); // block align
	header.writeUInt16LE(8, 34); // bits per sample
	header.write('data', 36, 'ascii');
	header.writeUInt32LE(samples, 40);
	// 8-bit PCM is unsigned: 128 is silence.
	return Buffer.concat([header, Buffer.alloc(samples, 128)]).toString('base64');
}

export const text = (value: string) => ({type: 'text' as const, text: value});
export const delay = async (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------
// Tools

export const noArguments = {type: 'object' as const, properties: {}};

export const tools: Tool[] = [
	{name: 'test_simple_text', description: 'Returns one text block (conformance: tools-call-simple-text).', inputSchema: noArguments},
	{name: 'test_image_content', description: 'Returns a PNG image (conformance: tools-call-image).', inputSchema: noArguments},
	{name: 'test_audio_content', description: 'Returns a WAV audio clip (conformance: tools-call-audio).', inputSchema: noArguments},
	{name: 'test_embedded_resource', description: 'Returns an embedded text resource (conformance: tools-call-embedded-resource).', inputSchema: noArguments},
	{name: 'test_multiple_content_types', description: 'Returns text, an image and an embedded resource (conformance: tools-call-mixed-content).', inputSchema: noArguments},
	{name: 'test_tool_with_logging', description: 'Sends three info log messages while it runs (conformance: tools-call-with-logging).', inputSchema: noArguments},
	{name: 'test_error_handling', description: 'Always fails with isError: true (conformance: tools-call-error).', inputSchema: noArguments},
	{name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100 when given a progress token (conformance: tools-call-with-progress).', inputSchema: noArguments},
	{
		name: 'test_sampling',
		description: 'Asks the client to sample an LLM with the prompt and returns its answer (conformance: tools-call-sampling).',
		inputSchema: {type: 'object', properties: {prompt: {type: 'string', description: 'The prompt to send to the LLM'}}, required: ['prompt']},
	},
	{
		name: 'test_elicitation',
		description: 'Asks the user, through the client, for a username and an email (conformance: tools-call-elicitation).',
		inputSchema: {type: 'object', properties: {message: {type: 'string', description: 'The message to show the user'}}, required: ['message']},
	},
	{name: 'test_elicitation_sep1034_defaults', description: 'Elicits a form whose fields all have defaults (conformance: elicitation-sep1034-defaults).', inputSchema: noArguments},
	{name: 'test_elicitation_sep1330_enums', description: 'Elicits a form with the five kinds of enum field (conformance: elicitation-sep1330-enums).', inputSchema: noArguments},
	{
		name: 'json_schema_2020_12_tool',
		description: 'Tool with JSON Schema 2020-12 features; echoes its arguments (conformance: json-schema-2020-12).',
		inputSchema: {
			$schema: 'https://json-schema.org/draft/2020-12/schema',
			type: 'object',
			$defs: {address: {type: 'object', properties: {street: {type: 'string'}, city: {type: 'string'}}}},
			properties: {name: {type: 'string'}, address: {$ref: '#/$defs/address'}},
			additionalProperties: false,
		},
	},
	{name: 'test_reconnection', description: 'Answers after a moment, for SSE reconnection tests (conformance: server-sse-polling).', inputSchema: noArguments},
];

export const elicitationForms: Record<string, ElicitRequestFormParams['requestedSchema']> = {
	test_elicitation: {
		type: 'object',
		properties: {
			username: {type: 'string', description: "User's response"},
			email: {type: 'string', description: "User's email address"},
		},
		required: ['username', 'email'],
	},
	test_elicitation_sep1034_defaults: {
		type: 'object',
		properties: {
			name: {type: 'string', description: 'User name', default: 'John Doe'},
			age: {type: 'integer', description: 'User age', default: 30},
			score: {type: 'number', description: 'User score', default: 95.5},
			status: {type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active'},
			verified: {type: 'boolean', description: 'Verification status', default: true},
		},
		required: [],
	},
	test_elicitation_sep1330_enums: {
		type: 'object',
		properties: {
			untitledSingle: {type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3']},
			titledSingle: {
				type: 'string',
				description: 'Titled single-select',
				oneOf: [
					{const: 'value1', title: 'First Option'},
					{const: 'value2', title: 'Second Option'},
					{const: 'value3', title: 'Third Option'},
				],
			},
			legacyEnum: {
				type: 'string',
				description: 'Legacy titled single-select (enumNames, deprecated)',
				enum: ['opt1', 'opt2', 'opt3'],
				enumNames: ['Option One', 'Option Two', 'Option Three'],
			},
			untitledMulti: {type: 'array', description: 'Untitled multi-select', items: {type: 'string', enum: ['option1', 'option2', 'option3']}},
			titledMulti: {
				type: 'array',
				description: 'Titled multi-select',
				items: {
					anyOf: [
						{const: 'value1', title: 'First Choice'},
						{const: 'value2', title: 'Second Choice'},
						{const: 'value3', title: 'Third Choice'},
					],
				},
			},
		},
		required: [],
	},
};

// ---------------------------------------------------------------------------
// Resources and prompts

export const resources = [
	{uri: 'test://static-text', name: 'static-text', description: 'A static text resource (conformance: resources-read-text).', mimeType: 'text/plain'},
	{uri: 'test://static-binary', name: 'static-binary', description: 'A static PNG image (conformance: resources-read-binary).', mimeType: 'image/png'},
	{uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to (conformance: resources-subscribe).', mimeType: 'text/plain'},
];

export const templateUri = 'test://template/{id}/data';
export const templatePattern = /^test:\/\/template\/([^/]+)\/data$/;

export function readResource(uri: string): ReadResourceResult {
	switch (uri) {
		case 'test://static-text':
			return {contents: [{uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.'}]};
		case 'test://static-binary':
			return {contents: [{uri, mimeType: 'image/png', blob: redPixelPng}]};
		case 'test://watched-resource':
			return {contents: [{uri, mimeType: 'text/plain', text: 'This is the content of the watched resource.'}]};
		default: {
			const id = templatePattern.exec(uri)?.[1];
			if (id !== undefined) {
				const value = decodeURIComponent(id);
				return {contents: [{uri, mimeType: 'application/json', text: JSON.stringify({id: value, templateTest: true, data: `Data for ID: ${value}`})}]};
			}

			// -32602 with {uri} on the wire, as every v2 SDK server answers (v1 SDK servers sent -32002).
			throw new ResourceNotFoundError(uri, `Resource not found: ${uri}. This server has ${resources.map(resource => resource.uri).join(', ')} and the template ${templateUri}.`);
		}
	}
}

export const prompts = [
	{name: 'test_simple_prompt', description: 'A prompt without arguments (conformance: prompts-get-simple).'},
	{
		name: 'test_prompt_with_arguments',
		description: 'A prompt with two arguments (conformance: prompts-get-with-args).',
		arguments: [
			{name: 'arg1', description: 'First test argument', required: true},
			{name: 'arg2', description: 'Second test argument', required: true},
		],
	},
	{
		name: 'test_prompt_with_embedded_resource',
		description: 'A prompt that embeds a resource (conformance: prompts-get-embedded-resource).',
		arguments: [{name: 'resourceUri', description: 'URI of the resource to embed', required: true}],
	},
	{name: 'test_prompt_with_image', description: 'A prompt with an image (conformance: prompts-get-with-image).'},
];

export function getPrompt(name: string, args: Record<string, string>): GetPromptResult {
	const required = (argument: string) => {
		const value = args[argument];
		if (value === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} needs the argument ${argument}.`);
		return value;
	};

	switch (name) {
		case 'test_simple_prompt':
			return {messages: [{role: 'user', content: text('This is a simple prompt for testing.')}]};
		case 'test_prompt_with_arguments':
			return {messages: [{role: 'user', content: text(`Prompt with arguments: arg1='${required('arg1')}', arg2='${required('arg2')}'`)}]};
		case 'test_prompt_with_embedded_resource':
			return {
				messages: [
					{role: 'user', content: {type: 'resource', resource: {uri: required('resourceUri'), mimeType: 'text/plain', text: 'Embedded resource content for testing.'}}},
					{role: 'user', content: text('Please process the embedded resource above.')},
				],
			};
		case 'test_prompt_with_image':
			return {
				messages: [
					{role: 'user', content: {type: 'image', data: redPixelPng, mimeType: 'image/png'}},
					{role: 'user', content: text('Please analyze the image above.')},
				],
			};
		default:
			throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}. This server has ${prompts.map(prompt => prompt.name).join(', ')}.`);
	}
}

/** Values offered by completion/complete, by prompt argument or template variable. */
export const completions: Record<string, string[]> = {
	'test_prompt_with_arguments/arg1': ['paris', 'park', 'party', 'test', 'testing'],
	'test_prompt_with_arguments/arg2': ['hello', 'world'],
	[`${templateUri}/id`]: ['1', '2', '3', '123'],
};
