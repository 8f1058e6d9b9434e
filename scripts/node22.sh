#!/bin/sh
# Runs a command with Node 22 or later first on PATH:
#
#   scripts/node22.sh COMMAND [ARGS...]     e.g. scripts/node22.sh npm ci
#
# When the `node` on PATH is 22 or later, the command runs as it is. When it
# is older (or there is none), Node 22 LTS is installed once from the npm
# registry package node-<os>-<arch>@22 into .tools/node22/ (ignored by git)
# and its bin is put first on PATH, so the command, and every `node` or
# `#!/usr/bin/env node` script it starts (npm, vitest, tsc), runs on it.
# The npm scripts of package.json go through this, and so does .ci/run.
#
# Needs `npm` on PATH for the one install (any npm that runs on the old
# node). Set MCP_HANGAR_NODE_DIR to install somewhere else.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
want=22

major() {
	# Nothing, or a node that cannot say, counts as too old.
	"$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0
}

found=$(command -v node || true)
if [ -n "$found" ] && [ "$(major "$found")" -ge "$want" ]; then
	exec "$@"
fi

case "$(uname -s)" in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) echo "scripts/node22.sh: no Node $want package for $(uname -s); install Node $want or later and put it on PATH." >&2; exit 1 ;;
esac
case "$(uname -m)" in
	x86_64 | amd64) arch=x64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) echo "scripts/node22.sh: no Node $want package for $(uname -m); install Node $want or later and put it on PATH." >&2; exit 1 ;;
esac

package="node-$os-$arch"
dir=${MCP_HANGAR_NODE_DIR:-$root/.tools/node$want}
bin="$dir/node_modules/$package/bin"
if [ ! -x "$bin/node" ] || [ "$(major "$bin/node")" -lt "$want" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "scripts/node22.sh: ${found:-no node} on PATH is older than Node $want, and there is no npm to fetch $package@$want with; install Node $want or later." >&2
		exit 1
	fi
	have=$(if [ -n "$found" ]; then "$found" --version 2>/dev/null || true; fi)
	echo "scripts/node22.sh: the node on PATH is ${have:-missing}, older than $want: installing $package@$want into $dir" >&2
	# Into a folder of its own first, then moved into place: a run beside this one never sees half an install.
	mkdir -p "$(dirname "$dir")"
	staging=$(mktemp -d "$dir.XXXXXX")
	trap 'rm -rf "$staging"' EXIT
	npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error --prefix "$staging" "$package@$want" >&2
	if [ ! -x "$staging/node_modules/$package/bin/node" ]; then
		echo "scripts/node22.sh: npm installed $package@$want, but it has no bin/node." >&2
		exit 1
	fi
	if [ ! -x "$bin/node" ] || [ "$(major "$bin/node")" -lt "$want" ]; then
		rm -rf "$dir"
		mv "$staging" "$dir"
	fi
	rm -rf "$staging"
	trap - EXIT
	echo "scripts/node22.sh: using $("$bin/node" --version) from $bin" >&2
fi

PATH="$bin:$PATH"
export PATH
exec "$@"
