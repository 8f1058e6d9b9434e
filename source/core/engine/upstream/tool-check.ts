/**
 * Whether an upstream's tool definition is one MCP clients accept. A client
 * checks `tools/list` as a whole (the SDK's `ListToolsResultSchema`): one
 * malformed tool makes it reject the list, and with it every tool of every
 * upstream hangar serves. So a tool that fails the SDK's `Tool` schema (or
 * has an `outputSchema` that is not an object schema, which the 2025 SDKs
 * refuse) is left out of the list, with the reason in words; the rest are
 * served as the upstream wrote them.
 */
import {ToolSchema} from '@modelcontextprotocol/core';
import {JsonRpcCode, JsonRpcError} from '../../base/errors.js';

type Issue = {code: string; path: PropertyKey[]; message: string; expected?: unknown; values?: unknown[]};

/** What a JSON value is, in words: "a string", "null", "an array". */
function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (value === undefined) return 'missing';
	const type = typeof value;
	return type === 'object' ? 'an object' : `a ${type}`;
}

function article(expected: string): string {
	if (expected === 'record' || expected === 'object') return 'an object';
	if (expected === 'array') return 'an array';
	return `a ${expected}`;
}

function valueAt(tool: unknown, path: readonly PropertyKey[]): unknown {
	let value = tool;
	for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
	return value;
}

function describe(tool: unknown, issue: Issue): string {
	const where = issue.path.length === 0 ? 'the tool' : `its ${issue.path.map(String).join('.')}`;
	const actual = valueAt(tool, issue.path);
	if (issue.code === 'invalid_type' && typeof issue.expected === 'string') return `${where} is ${kindOf(actual)}, not ${article(issue.expected)}`;
	if (issue.code === 'invalid_value' && issue.values !== undefined) {
		const allowed = issue.values.map(value => JSON.stringify(value)).join(', ');
		return `${where} is ${JSON.stringify(actual)?.slice(0, 60) ?? kindOf(actual)}, not ${issue.values.length === 1 ? allowed : `one of ${allowed}`}`;
	}

	return `${where}: ${issue.message}`;
}

/** Undefined when clients accept `tool`; else what is wrong with it, in words ("its inputSchema is a string, not an object"). */
export function toolProblem(tool: unknown): string | undefined {
	const checked = ToolSchema.safeParse(tool);
	if (!checked.success) return (checked.error.issues as Issue[]).slice(0, 3).map(issue => describe(tool, issue)).join('; ');
	const output = (tool as {outputSchema?: unknown}).outputSchema;
	if (output !== undefined && (output as {type?: unknown}).type !== 'object') {
		return `its outputSchema.type is ${JSON.stringify((output as {type?: unknown}).type) ?? 'missing'}, not "object" (a tool's structured output must be an object)`;
	}

	return undefined;
}

/** A tool left out of tools/list, and why. */
export type LeftOutTool = {name: string; reason: string};

/** The log line for a tool left out: what, why, and what to do. */
export function leftOutNote(tool: LeftOutTool): string {
	return `tool "${tool.name}" left out of tools/list: ${tool.reason}. MCP clients reject a list with such a tool in it; fix the server's tool definition (the rest of its tools are served)`;
}

/** A call to a tool its upstream lists but hangar leaves out of tools/list, since clients would reject it (tool-check.ts). */
export function toolLeftOut(server: string, tool: string, reason: string): JsonRpcError {
	return new JsonRpcError(
		JsonRpcCode.InvalidParams,
		`Tool "${tool}" of server "${server}" is not served: hangar left it out of tools/list because ${reason}, which MCP clients reject. The server is broken: fix its tool definition (or report it to its authors); its other tools are served.`,
		{error: 'ToolLeftOut', server, tool, reason},
	);
}
