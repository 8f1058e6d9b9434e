/** Bad usage of the `mcp-hangar` command (a flag or argument that cannot work): the CLI prints it and exits 2. */
export class UsageError extends Error {
	override name = 'UsageError';
}
