/**
 * Bounds Ink's caches (see ink-patch/hooks.ts) in this process: call it
 * before anything imports Ink. Node 20.6 and later only (module.register);
 * on an older Node the caches stay as Ink has them.
 */
import module from 'node:module';

let registered = false;

export function boundInkCaches(): boolean {
	if (registered) return true;
	if (typeof module.register !== 'function') return false;
	module.register('./ink-patch/hooks.js', import.meta.url);
	registered = true;
	return true;
}
