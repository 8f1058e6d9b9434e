/**
 * The built binary keeps what hangar never runs of its packages out of its
 * processes (cli/node-runtime.ts, skipUnusedModuleParts): with the hook,
 * `z.locales` holds English alone and zod's messages are what they were; a
 * file that only looks like zod's index (no `en.js` beside it) is read as it
 * is; the MCP SDK loads ajv when it first compiles a JSON Schema, not when
 * it loads, and its validators answer as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {ajvOnFirstUse} from '../../source/cli/node-runtime.js';
import {root, tempDir} from '../support/hangar.js';

const runtime = pathToFileURL(path.join(root, 'dist', 'cli', 'node-runtime.js')).href;

/** Runs `body` as an ES module in a fresh node, in `cwd`, after the hook when `hooked`; its stdout as JSON. */
function probe(body: string, hooked: boolean, cwd = root): unknown {
	const script = `${hooked ? `import {skipUnusedModuleParts} from ${JSON.stringify(runtime)}; skipUnusedModuleParts();\n` : ''}${body}`;
	const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {cwd, encoding: 'utf8', timeout: 30_000});
	expect(result.stderr).toBe('');
	expect(result.status).toBe(0);
	return JSON.parse(result.stdout) as unknown;
}

const sdkFacts = `import {registerHooks} from 'node:module';
const loaded = [];
registerHooks({load(url, context, next) { loaded.push(url); return next(url, context); }});
const sdk = await import('@modelcontextprotocol/client');
const atImport = loaded.filter(url => url.includes('/ajvProvider-')).length;
const validate = new sdk.Client({name: 'x', version: '1'})._jsonSchemaValidator.getValidator({type: 'object', properties: {a: {type: 'string'}}, required: ['a']});
const fromSchema = sdk.fromJsonSchema({type: 'object', properties: {n: {type: 'number'}}});
process.stdout.write(JSON.stringify({atImport, afterUse: loaded.filter(url => url.includes('/ajvProvider-')).length, good: validate({a: 'x'}), bad: validate({a: 1}), missing: validate({}), schema: typeof fromSchema}));`;

const zodFacts = `const z = await import('zod');
const issue = z.string().safeParse(1).error.issues[0];
process.stdout.write(JSON.stringify({locales: Object.keys(z.locales), message: issue.message, en: typeof z.locales.en}));`;

describe("zod's translations", () => {
	it('are not loaded with the hook: z.locales is English alone, and zod says what it said without it', () => {
		const without = probe(zodFacts, false) as {locales: string[]; message: string; en: string};
		const hooked = probe(zodFacts, true) as {locales: string[]; message: string; en: string};
		expect(without.locales.length).toBeGreaterThan(60);
		expect(without.locales).toContain('en');
		expect(hooked.locales).toEqual(['en']);
		expect(hooked.en).toBe('function');
		expect(hooked.message).toBe(without.message);
		expect(hooked.message).toMatch(/expected string/);
	});

	it('leaves a file alone that is not zod\'s index with its English beside it', () => {
		const dir = tempDir('hangar-zod-locales-');
		const locales = path.join(dir, 'node_modules', 'zod', 'v4', 'locales');
		fs.mkdirSync(locales, {recursive: true});
		fs.writeFileSync(path.join(locales, 'index.js'), 'export const fr = "fr";\nexport const de = "de";\n');
		const body = `const index = await import(${JSON.stringify(pathToFileURL(path.join(locales, 'index.js')).href)});
process.stdout.write(JSON.stringify(Object.keys(index).sort()));`;
		expect(probe(body, true, dir)).toEqual(['de', 'fr']);
	});
});

describe("the SDK's JSON Schema validator (ajv)", () => {
	it('is loaded when a schema is first compiled, not with the SDK, and validates as before', () => {
		const without = probe(sdkFacts, false) as {atImport: number; afterUse: number; good: unknown; bad: unknown; missing: unknown; schema: string};
		const hooked = probe(sdkFacts, true) as typeof without;
		expect(without.atImport).toBe(1);
		expect(hooked.atImport).toBe(0);
		expect(hooked.afterUse).toBe(1);
		expect(hooked.good).toEqual(without.good);
		expect(hooked.bad).toEqual(without.bad);
		expect(hooked.missing).toEqual(without.missing);
		expect(hooked.bad).toMatchObject({valid: false});
		expect(hooked.schema).toBe(without.schema);
	});

	it('is left as the SDK ships it when its shims are not in the shape the hook knows', () => {
		const url = 'file:///x/node_modules/@modelcontextprotocol/client/dist/shimsNode.mjs';
		const known = 'import { n as AjvJsonSchemaValidator } from "./ajvProvider-AB_c-1.mjs";\nconst CORS_IS_POSSIBLE = false;\nexport { CORS_IS_POSSIBLE, AjvJsonSchemaValidator as DefaultJsonSchemaValidator };\n';
		const lazy = ajvOnFirstUse(known, url);
		expect(lazy).toContain('"/x/node_modules/@modelcontextprotocol/client/dist/ajvProvider-AB_c-1.mjs"');
		expect(lazy).toContain('["n"]');
		expect(lazy).not.toContain('from "./ajvProvider');
		expect(lazy).toContain('export { CORS_IS_POSSIBLE, AjvJsonSchemaValidator as DefaultJsonSchemaValidator };');
		// Used in the module itself, imported another way, or not exported as the default validator: not touched.
		expect(ajvOnFirstUse(known.replace('export', 'AjvJsonSchemaValidator.prototype.x = 1;\nexport'), url)).toBeUndefined();
		expect(ajvOnFirstUse(known.replace('{ n as AjvJsonSchemaValidator }', '* as AjvJsonSchemaValidator'), url)).toBeUndefined();
		expect(ajvOnFirstUse(known.replace('as DefaultJsonSchemaValidator', 'as OtherValidator'), url)).toBeUndefined();
	});
});
