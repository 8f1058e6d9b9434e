import {describe, expect, it} from 'vitest';
import {claudeDesktop} from '../../../source/client-files/clients/claude-desktop.js';
import {convertServer, oauthRule} from '../../../source/client-files/server-entry.js';

const context = {client: 'claude-desktop' as const, file: '/home/u/claude_desktop_config.json', group: {kind: 'user' as const}, home: '/home/u'};

describe('an mcp-remote entry on import', () => {
	it('becomes the native url server it bridges to, with its headers, transport and pre-registered client id, and a note', () => {
		const converted = convertServer(
			'linear',
			{
				command: 'npx',
				args: ['-y', 'mcp-remote@0.1.29', 'https://mcp.linear.app/mcp', '--header', 'Authorization:${AUTH}', '--transport', 'http-only', '--static-oauth-client-info', '{"client_id":"abc","client_secret":"s3cret"}', '--allow-http', '3334'],
				env: {AUTH: 'Bearer xyz'},
			},
			{},
			context as never,
		);
		expect(converted.problem).toBeUndefined();
		expect(converted.entry).toEqual({type: 'http', url: 'https://mcp.linear.app/mcp', headers: {Authorization: 'Bearer xyz'}, oauth: {clientId: 'abc'}});
		expect(converted.notes.join('\n')).toContain('became a native url server');
		expect(converted.notes.join('\n')).toContain('client_secret not copied');
		expect(converted.notes.join('\n')).toContain('--allow-http 3334');
		expect(JSON.stringify(converted)).not.toContain('s3cret');
	});

	it('says a header variable the entry\'s env set was written as its value (as mcp-remote sent it), never showing the value; one it did not set is left to hangar', () => {
		const converted = convertServer(
			'slack',
			{
				command: 'npx',
				args: ['-y', 'mcp-remote', 'https://mcp.slack.example.com/sse', '--header', 'Authorization: Bearer ${SLACK_TOKEN}', '--header', 'X-Team: ${SLACK_TEAM}'],
				env: {SLACK_TOKEN: 'xoxb-1234567890-secretslacktoken'},
			},
			claudeDesktop.dialect,
			context as never,
		);
		expect(converted.entry).toEqual({url: 'https://mcp.slack.example.com/sse', headers: {Authorization: 'Bearer xoxb-1234567890-secretslacktoken', 'X-Team': '${SLACK_TEAM}'}});
		expect(converted.notes.filter(note => note.includes('SLACK_'))).toEqual([
			'${SLACK_TEAM} is expanded by hangar from its environment (claude-desktop passed it as written)',
			'headers.Authorization written as "Bearer ***": mcp-remote put the entry\'s env SLACK_TOKEN in it, so hangar\'s config holds that value; to keep it out of the file, write "Bearer ${SLACK_TOKEN}" there and set SLACK_TOKEN where hangar runs',
		]);
		expect(JSON.stringify(converted.notes)).not.toContain('xoxb');
	});

	it('leaves other npx servers alone', () => {
		const converted = convertServer('memory', {command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory']}, {}, context as never);
		expect(converted.entry).toEqual({command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory']});
	});
});

describe("a client's own OAuth settings on import", () => {
	it('keep the client id and scopes, never the secret, and say hangar signs in itself', () => {
		const converted = convertServer(
			'notion',
			{url: 'https://mcp.notion.com/mcp', oauth: {clientId: 'n-1', clientSecret: 'p4ss', scopes: ['read', 'write'], callbackPort: 8765}},
			{keys: {oauth: oauthRule}},
			{...context, client: 'claude-code'} as never,
		);
		expect(converted.entry).toEqual({url: 'https://mcp.notion.com/mcp', oauth: {clientId: 'n-1', scope: 'read write'}});
		expect(converted.notes.join('\n')).toContain('clientSecret not copied');
		expect(converted.notes.join('\n')).toContain('callbackPort dropped');
		expect(JSON.stringify(converted)).not.toContain('p4ss');
	});
});
