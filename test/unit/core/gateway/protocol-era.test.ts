import {describe, expect, it} from 'vitest';
import {headerProblem, modernErrorCodeOf, modernResult, modernResultJson, requestEra, withoutEnvelope} from '../../../../source/core/gateway/protocol-era.js';

const envelope = {'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {sampling: {}}, 'io.modelcontextprotocol/logLevel': 'debug'};

describe('protocol-era', () => {
	it('reads each request\'s generation from its _meta envelope', () => {
		expect(requestEra(1, 'tools/list', undefined)).toEqual({era: 'legacy'});
		expect(requestEra(1, 'tools/list', {_meta: {progressToken: 3}})).toEqual({era: 'legacy'});
		expect(requestEra(1, 'tools/list', {_meta: envelope})).toEqual({era: 'modern', request: {revision: '2026-07-28', capabilities: {sampling: {}}, clientInfo: undefined, logLevel: 'debug'}});
		const missing = requestEra(1, 'tools/list', {_meta: {'io.modelcontextprotocol/protocolVersion': '2026-07-28'}});
		expect(missing).toMatchObject({era: 'refused', code: -32_602, httpStatus: 400});
		const future = requestEra(1, 'tools/list', {_meta: {...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01'}});
		expect(future).toMatchObject({era: 'refused', code: -32_022, data: {requested: '2099-01-01'}});
	});

	it('keeps the envelope at hangar\'s edge and answers in the modern shape', () => {
		expect(withoutEnvelope({...envelope, traceparent: 't'})).toEqual({traceparent: 't'});
		expect(modernResult('tools/call', {content: []})).toEqual({content: [], resultType: 'complete'});
		expect(modernResult('tools/list', {tools: []})).toEqual({tools: [], ttlMs: 0, cacheScope: 'private', resultType: 'complete'});
		expect(modernResult('tools/call', {resultType: 'input_required'})).toEqual({resultType: 'input_required'});
		expect(JSON.parse(modernResultJson('tools/list', '{"tools":[]}'))).toEqual({resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: []});
		expect(JSON.parse(modernResultJson('completion/complete', '{}'))).toEqual({resultType: 'complete'});
		expect(modernErrorCodeOf(-32_002)).toBe(-32_602);
		expect(modernErrorCodeOf(-32_603)).toBe(-32_603);
	});

	it('checks the HTTP headers that mirror the body', () => {
		const headers = {protocolVersion: '2026-07-28', method: 'tools/call', name: 'echo'};
		expect(headerProblem('tools/call', {name: 'echo'}, '2026-07-28', headers)).toBeUndefined();
		expect(headerProblem('tools/call', {name: 'echo'}, '2026-07-28', {...headers, name: `=?base64?${Buffer.from('echo').toString('base64')}?=`})).toBeUndefined();
		expect(headerProblem('tools/call', {name: 'echo'}, '2026-07-28', {...headers, name: '=?base64?@@?='})).toContain('invalid Base64');
		expect(headerProblem('tools/call', {name: 'echo'}, '2026-07-28', {...headers, name: 'other'})).toContain('Mcp-Name header names "other"');
		expect(headerProblem('tools/call', {name: 'echo'}, '2026-07-28', {...headers, method: 'tools/list'})).toContain('Mcp-Method header names tools/list');
		expect(headerProblem('tools/call', {name: 'echo'}, '2026-07-28', {...headers, protocolVersion: undefined})).toContain('MCP-Protocol-Version header is absent');
		expect(headerProblem('resources/read', {uri: 'a://b'}, '2026-07-28', {...headers, method: 'resources/read', name: undefined})).toContain('params.uri');
		expect(headerProblem('tools/list', {}, '2026-07-28', {...headers, method: 'tools/list', name: undefined})).toBeUndefined();
	});
});
