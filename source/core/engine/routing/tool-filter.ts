/**
 * A server's tool filter: `includeTools` and `excludeTools` in its config
 * entry, lists of tool names or globs (`*` any run of characters, `?` one),
 * matched against the upstream's own tool names. A tool is served when it
 * matches no exclude glob and, if there is an include list, some include
 * glob: exclude wins. A filtered tool is absent from every surface and its
 * calls are refused; `ruleFor` says which rule filtered it, for the refusal
 * and the TUI's detail view. (1mcp's `disabledTools`, mcpmu's
 * `deniedTools` and Windsurf's `disabledTools` are read as excludeTools by
 * the config loader; Gemini CLI writes these two names itself.)
 */

function globToRegExp(glob: string): RegExp {
	const body = [...glob].map(char => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
	return new RegExp(`^${body}$`, 'u');
}

type Compiled = {glob: string; pattern: RegExp};

export class ToolFilter {
	private readonly include: Compiled[] | undefined;
	private readonly exclude: Compiled[];

	constructor(include: readonly string[] | undefined, exclude: readonly string[] | undefined) {
		const compile = (globs: readonly string[]) => globs.map(glob => ({glob, pattern: globToRegExp(glob)}));
		this.include = include === undefined ? undefined : compile(include);
		this.exclude = compile(exclude ?? []);
	}

	/** Whether the filter filters anything at all. */
	get active(): boolean {
		return this.include !== undefined || this.exclude.length > 0;
	}

	/** Undefined when `tool` is served; else the rule that filters it out, as the config writes it: `excludeTools "delete_*"`. */
	ruleFor(tool: string): string | undefined {
		const excluded = this.exclude.find(rule => rule.pattern.test(tool));
		if (excluded !== undefined) return `excludeTools "${excluded.glob}"`;
		if (this.include !== undefined && !this.include.some(rule => rule.pattern.test(tool))) {
			return `includeTools ${JSON.stringify(this.include.map(rule => rule.glob))} (it matches none of them)`;
		}

		return undefined;
	}
}
