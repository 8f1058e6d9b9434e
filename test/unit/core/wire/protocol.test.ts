import fs from 'node:fs';
import path from 'node:path';
import {LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS} from '@modelcontextprotocol/client';
import {describe, expect, it} from 'vitest';
import {
	personActionMethod,
	drainingNotification,
	hangarName,
	hangarVersion,
	implementationInfo,
	isHangarMethod,
	latestProtocolVersion,
	supportedProtocolVersions,
} from '../../../../source/core/wire/protocol.js';
import {root} from '../../../support/hangar.js';

describe('the protocol constants', () => {
	it('take hangar\'s name and version from package.json', () => {
		const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {name: string; version: string};
		expect([hangarName, hangarVersion]).toEqual([packageJson.name, packageJson.version]);
		expect(implementationInfo).toEqual({name: 'mcp-hangar', version: packageJson.version});
	});

	it('list the 2025-era protocol versions, newest first, each one the SDK\'s client also speaks to upstreams', () => {
		expect([...supportedProtocolVersions]).toEqual(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);
		for (const version of supportedProtocolVersions) expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(version);
		// The SDK's legacy initialize asks upstreams for the same newest version hangar offers its clients.
		expect(latestProtocolVersion).toBe(LATEST_PROTOCOL_VERSION);
		// 2026-07-28 (stateless requests, server/discover) is not served yet: issue 31.
		expect(supportedProtocolVersions).not.toContain('2026-07-28');
	});

	it('keep hangar\'s private command among the methods no MCP client may send, and its draining notice a notification', () => {
		expect(isHangarMethod(personActionMethod)).toBe(true);
		expect(isHangarMethod('tools/call')).toBe(false);
		expect(drainingNotification.startsWith('notifications/')).toBe(true);
	});
});
