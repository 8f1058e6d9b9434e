import {describe, expect, it} from 'vitest';
import {clientRows} from '../../../../source/tui/components/client-columns.js';
import type {ClientView} from '../../../../source/core/engine/clients/clients.js';

const client = (name: string | null, version: string | null): ClientView => ({name, version, protocolVersion: '2025-11-25', connectedAt: 0, lastCallAt: null}) as unknown as ClientView;

describe('the clients view\'s rows', () => {
	it('names a client by its name and version, and an invisible character at either end shows escaped, not trimmed away', () => {
		const [plain, bare, hidden] = clientRows([client('claude-code', '2.1.0'), client('cursor', null), client('claude-code\uFEFF', '\u2028')], 1000);
		expect(plain!.name).toBe('claude-code 2.1.0');
		expect(bare!.name).toBe('cursor');
		// Two clients that would look the same if trim() removed what it counts as whitespace.
		expect(hidden!.name).toBe(String.raw`claude-code\ufeff \u2028`);
	});
});
