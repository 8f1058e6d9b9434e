/**
 * The built binary keeps zod's translations out of its processes
 * (cli/node-runtime.ts, skipUnusedZodLocales): with the hook, `z.locales`
 * holds English alone and zod's messages are what they were; a file that
 * only looks like zod's index (no `en.js` beside it) is read as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {root, tempDir} from '../support/hangar.js';

const runtime = pathToFileURL(path.join(root, 'dist', 'cli', 'node-runtime.js')).href;

/** Runs `body` as an ES module in a fresh node, in `cwd`, after the hook when `hooked`; its stdout as JSON. */
function probe(body: string, hooked: boolean, cwd = root): unknown {
	const script = `${hooked ? `import {skipUnusedZodLocales} from ${JSON.stringify(runtime)}; skipUnusedZodLocales();\n` : ''}${body}`;
	const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {cwd, encoding: 'utf8', timeout: 30_000});
	expect(result.stderr).toBe('');
	expect(result.status).toBe(0);
	return JSON.parse(result.stdout) as unknown;
}

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
