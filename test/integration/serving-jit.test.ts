/**
 * The serving processes' V8 tiering (core/base/serving-jit.ts, tuneJitForServing):
 * in a real node process, a function called 1,000 times is optimized by
 * TurboFan once the flags are set at run time, and is not with V8's
 * defaults (3,000 calls). The child imports the module itself (type
 * stripping), so what is tested is the function the entry calls.
 * `--no-concurrent-recompilation` makes the tier-up happen at the call that
 * earns it, not on a compiler thread later: no waiting, no race.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {root, tempDir} from '../support/hangar.js';

const child = `
const {tuneJitForServing} = await import(process.argv[2]);
if (process.argv[3] === 'tuned') tuneJitForServing();
function hot(o) { return o.a + o.b.length; }
let sum = 0;
for (let i = 0; i < 1000; i++) sum += hot({a: i, b: 'xx'});
// Bit 4 of V8's optimization status: the function runs optimized code.
process.stdout.write(sum > 0 && (%GetOptimizationStatus(hot) & 16) !== 0 ? 'optimized' : 'not optimized');
`;

async function tierAfter1000Calls(mode: 'tuned' | 'plain'): Promise<string> {
	const script = path.join(tempDir('hangar-jit-'), 'child.mjs');
	fs.writeFileSync(script, child);
	const module = path.join(root, 'source', 'core', 'base', 'serving-jit.ts');
	return new Promise((resolve, reject) => {
		execFile(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '--no-warnings', script, module, mode], {timeout: 30_000}, (error, stdout, stderr) => {
			if (error) reject(new Error(`${error.message}\n${stderr}`));
			else resolve(stdout);
		});
	});
}

describe('the serving processes tier up sooner', () => {
	it('a function called 1,000 times is optimized with the serving flags, and not with V8 defaults', async () => {
		const [tuned, plain] = await Promise.all([tierAfter1000Calls('tuned'), tierAfter1000Calls('plain')]);
		expect(tuned).toBe('optimized');
		expect(plain).toBe('not optimized');
	});
});
