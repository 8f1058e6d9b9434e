import {describe, expect, it} from 'vitest';
import {startFailed, unavailable, unknownServerTool} from '../../../../source/core/engine/refusals.js';

// A one-shot command (`mcp-hangar call` with no hangar running) runs a hangar of its own that exits with it:
// its hints must not send the reader to `mcp-hangar start`, which refuses when no hangar runs.
describe('hints of a one-shot command', () => {
	const permanent = 'Check the spelling of "command" in its config entry.';

	it('a start that cannot work as written says to run the command again, not to start the upstream', () => {
		const error = startFailed('ghost', {detail: 'command "/x" does not exist', restartAt: undefined, remote: false, stderr: [], permanent});
		expect(error.hintFor('cli-once')).toBe(`${permanent} Once fixed, run the command again (no hangar is running for this config: the one this command ran for itself exits with it).`);
		expect(error.hintFor('cli-once')).not.toContain('mcp-hangar start');
		expect(error.hintFor('cli')).toContain('start it again (key s in mcp-hangar tui, or mcp-hangar start ghost)');
		expect(error.hintFor('mcp')).toContain('the hangar_start tool {"server": "ghost"}');
	});

	it('a dead upstream that is not retried says the same', () => {
		const error = unavailable('ghost', 'tools/call', {state: 'dead', reason: 'gone', restartAt: undefined, permanent});
		expect(error.hintFor('cli-once')).not.toContain('mcp-hangar start');
		expect(startFailed('fx', {detail: 'exited', restartAt: undefined, remote: false, stderr: []}).hintFor('cli-once')).toContain('Run the command again');
	});
});

describe('an unknown tool of an upstream with many', () => {
	it('names the closest tool and lists the first 20 of 500 with how many more, keeping every name in the data', () => {
		const tools = Array.from({length: 500}, (_, i) => `tool_${i + 1}`);
		const error = unknownServerTool('many', 'tool-7', tools);
		expect(error.message).toBe(`Unknown tool "tool-7" on server "many" (hangar_call). Did you mean "tool_7"? Its 500 tools: ${tools.slice(0, 20).join(', ')}, … and 480 more. Use hangar_find_tools to search every server.`);
		expect((error.data as {tools: string[]}).tools).toHaveLength(500);
		expect(unknownServerTool('none', 'x', []).message).toContain('Its 0 tools: none.');
	});
});
