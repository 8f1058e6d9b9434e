import {describe, expect, it} from 'vitest';
import {startFailed, unavailable} from '../../../../source/core/engine/refusals.js';

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
