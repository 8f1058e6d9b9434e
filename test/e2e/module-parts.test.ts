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
import {ajvOnFirstUse, zodPackageOf} from '../../source/cli/node-runtime.js';
import {root, tempDir} from '../support/hangar.js';

const runtime = pathToFileURL(path.join(root, 'dist', 'cli', 'node-runtime.js')).href;

const zodBundle = pathToFileURL(path.join(root, 'dist', 'bundle', 'zod.js')).href;

/** Runs `body` as an ES module in a fresh node, in `cwd`, after the hook when `hooked` (given zod's one file when `bundle`); its stdout as JSON. */
function probe(body: string, hooked: boolean, cwd = root, bundle?: string): unknown {
	const install = `import {skipUnusedModuleParts} from ${JSON.stringify(runtime)}; skipUnusedModuleParts(${bundle === undefined ? '' : `new URL(${JSON.stringify(bundle)})`});\n`;
	const script = `${hooked ? install : ''}${body}`;
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

const sharedZod = `import {registerHooks} from 'node:module';
const loaded = [];
registerHooks({load(url, context, next) { loaded.push(url); return next(url, context); }});
const z = await import('zod');
const v4 = await import('zod/v4');
const sdk = await import('@modelcontextprotocol/client');
const issue = z.string().safeParse(1).error.issues[0];
const parsed = sdk.specTypeSchemas.Implementation['~standard'].validate({name: 'x', version: 1});
process.stdout.write(JSON.stringify({
	same: z === v4 || (z.object === v4.object && z.default === v4.default),
	zodFiles: loaded.filter(url => url.includes('/zod/') || url.endsWith('/zod.js')).map(url => url.endsWith('/dist/bundle/zod.js') ? 'dist/bundle/zod.js' : url.slice(url.lastIndexOf('node_modules/'))),
	locales: Object.keys(z.locales), message: issue.message, sdkIssue: parsed.issues?.[0]?.message,
	required: typeof (await import('node:module')).createRequire(import.meta.url)('zod').object,
}));`;

describe("zod as one file (dist/bundle/zod.js)", () => {
	it("is what both hangar's 'zod' and the SDK's 'zod/v4' load, English alone, answering as node_modules' zod does", () => {
		const without = probe(sharedZod, false) as {same: boolean; zodFiles: string[]; locales: string[]; message: string; sdkIssue: string; required: string};
		const bundled = probe(sharedZod, true, root, zodBundle) as typeof without;
		expect(without.zodFiles.length).toBeGreaterThan(30);
		expect(bundled.zodFiles).toEqual(['dist/bundle/zod.js']);
		expect(bundled.same).toBe(true);
		expect(bundled.locales).toEqual(['en']);
		expect(bundled.message).toBe(without.message);
		expect(bundled.sdkIssue).toBe(without.sdkIssue);
		expect(bundled.sdkIssue).toMatch(/expected string/);
		// A require of zod is left to zod's own CommonJS build.
		expect(bundled.required).toBe('function');
	});

	it('is not what a package with a zod of its own gets: only imports that land in the zod beside hangar are redirected', () => {
		const dir = tempDir('hangar-own-zod-');
		const pkg = path.join(dir, 'node_modules', 'has-own-zod');
		const own = path.join(pkg, 'node_modules', 'zod');
		fs.mkdirSync(path.join(own, 'v4'), {recursive: true});
		fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({name: 'has-own-zod', type: 'module', exports: './index.js'}));
		fs.writeFileSync(path.join(pkg, 'index.js'), "export {which} from 'zod';\nexport {which as v4} from 'zod/v4';\n");
		fs.writeFileSync(path.join(own, 'package.json'), JSON.stringify({name: 'zod', type: 'module', exports: {'.': './index.js', './v4': './v4/index.js'}}));
		fs.writeFileSync(path.join(own, 'index.js'), "export const which = 'its own';\n");
		fs.writeFileSync(path.join(own, 'v4', 'index.js'), "export const which = 'its own v4';\n");
		const body = `const own = await import(${JSON.stringify(pathToFileURL(path.join(pkg, 'index.js')).href)});
process.stdout.write(JSON.stringify({which: own.which, v4: own.v4}));`;
		expect(probe(body, true, dir, zodBundle)).toEqual({which: 'its own', v4: 'its own v4'});
	});

	it('is not used when the file is missing: zod loads from node_modules as before', () => {
		const missing = probe(sharedZod, true, root, pathToFileURL(path.join(tempDir('hangar-no-zod-'), 'zod.js')).href) as {zodFiles: string[]; locales: string[]};
		expect(missing.zodFiles.length).toBeGreaterThan(30);
		expect(missing.zodFiles.every(file => file.startsWith('node_modules/'))).toBe(true);
		expect(missing.locales).toEqual(['en']);
	});
});

describe('zodPackageOf', () => {
	it("names the zod package a module's URL is in, the innermost when zod is nested", () => {
		expect(zodPackageOf('file:///a/node_modules/zod/v4/index.js')).toBe('file:///a/node_modules/zod/');
		expect(zodPackageOf('file:///a/node_modules/zod/index.js')).toBe('file:///a/node_modules/zod/');
		expect(zodPackageOf('file:///a/node_modules/x/node_modules/zod/index.js')).toBe('file:///a/node_modules/x/node_modules/zod/');
		expect(zodPackageOf('file:///a/node_modules/zod-extra/index.js')).toBeUndefined();
		expect(zodPackageOf('node:zod')).toBeUndefined();
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
