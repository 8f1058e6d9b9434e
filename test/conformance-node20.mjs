// Preloaded (node --import) when the conformance CLI runs on Node 20.
// @modelcontextprotocol/conformance 0.1.16 imports fs.globSync (Node 22), which
// only its tier-check command uses; every other command runs on Node 20. This
// hook rewrites that one import into a stub that says so if it is ever called.
// On Node 22 and later it does nothing.
import fs from 'node:fs';
import {register} from 'node:module';

const hook = `
export async function load(url, context, next) {
	const result = await next(url, context);
	if (!url.includes('/@modelcontextprotocol/conformance/dist/')) return result;
	const source = String(result.source);
	if (!source.includes('globSync as o,')) throw new Error('conformance-node20.mjs: the conformance CLI changed; update this hook');
	return {...result, source: source.replace('globSync as o,', '') + '\\nfunction o(){throw new Error("tier-check needs fs.globSync (Node 22)")}\\n'};
}
`;

if (typeof fs.globSync !== 'function') register(`data:text/javascript,${encodeURIComponent(hook)}`);
