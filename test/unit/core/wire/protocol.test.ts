import fs from 'node:fs';
import path from 'node:path';
import {LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS} from '@modelcontextprotocol/sdk/types.js';
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

	it('list the protocol versions the SDK negotiates, newest first', () => {
		expect([...supportedProtocolVersions]).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
		expect(latestProtocolVersion).toBe(LATEST_PROTOCOL_VERSION);
	});

	it('keep hangar\'s private command among the methods no MCP client may send, and its draining notice a notification', () => {
		expect(isHangarMethod(personActionMethod)).toBe(true);
		expect(isHangarMethod('tools/call')).toBe(false);
		expect(drainingNotification.startsWith('notifications/')).toBe(true);
	});
});
