/**
 * A person's sign-in or sign-out of a command upstream (the TUI's a key, in
 * process or over the socket): there is nothing to sign in to, and the
 * refusal says so instead of sending the person to `mcp-hangar auth`, which
 * refuses a command upstream too.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {HangarError} from '../../source/core/base/errors.js';
import {startSignIn} from '../../source/core/engine/sign-in-start.js';
import {fixture} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

afterEach(closeAll);

async function refusal(promise: Promise<unknown>): Promise<HangarError> {
	const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
	if (!(error instanceof HangarError)) throw new Error(`expected a HangarError, got ${String(error)}`);
	return error;
}

describe('sign-in of a command upstream', () => {
	it('is refused as not a remote server, suggesting no command that would fail', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal')}, {}, {launch: false});
		const refusals = [
			await refusal(startSignIn(supervisor, 'fx', 'a person in the TUI')),
			await refusal(supervisor.act('fx', 'sign-in', 'a person in the TUI')),
			await refusal(supervisor.act('fx', 'sign-out', 'a person in the TUI')),
		];
		for (const error of refusals) {
			expect(error.message).toContain('it is a command, not a remote ("url") server');
			for (const audience of ['mcp', 'cli'] as const) {
				expect(error.hintFor(audience)).toBe('Sign-in applies only to remote ("url") servers that ask for OAuth; a command server takes its credentials from its config entry (env, args).');
				expect(error.messageFor(audience)).not.toContain('mcp-hangar auth');
			}
		}
	});
});
