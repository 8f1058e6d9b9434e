// Preloaded into a hangar under test (node --import) to reach its "internal
// error" exit path: SIGUSR2 raises an uncaught exception on the next turn.
// Kept out of the shipped code, which has no fault hook.
process.on('SIGUSR2', () => {
	setImmediate(() => {
		throw new Error('injected internal error (SIGUSR2, test/support/inject-fault.mjs)');
	});
});
