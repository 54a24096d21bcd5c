#!/bin/sh
# Builds the example programs with nexus and runs a few of their commands:
# what `make demo` shows. examples/seq is Python only; examples/chem mixes
# Python, C++ and Go in one program.
set -eu
nexus=$1
examples="$(cd "$(dirname "$0")/../examples" && pwd)"
show() {
	echo "\$ $*"
	"$@"
	echo
}

cd "$examples/seq"
show "$nexus" make main.loc
show ./seq --help
show ./seq gc ACGTGGCC
show ./seq kmers -k 3 ACGTACGT
show ./seq summary ACGT GGCCGG ATATATAT
show ./seq motif -i acg ACGTACGT
show ./seq gcrev AAAAC
show ./seq codons

cd "$examples/chem"
show "$nexus" make main.loc
show ./chem --help
show ./chem weight 'Ca(OH)2'
show ./chem stats 1 2 3 4
show ./chem describe -p 5 --hydrogens
show ./chem chain C6H12O6 --factor 2 --max 300
show ./chem label H2O CO2
show ./chem answer

# The same commands as MCP tools: what an MCP client sees, the entry to
# paste into Claude Desktop, and a short stdio session (one JSON-RPC message
# a line) calling a tool that chains Python, C++ and Go.
echo "\$ ./chem --mcp-tools | head -12"
./chem --mcp-tools | head -12
echo
show ./chem --mcp-config
echo "\$ printf '<initialize, initialized, tools/call chain>' | $nexus mcp ./chem"
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chain","arguments":{"formula":"C6H12O6","factor":2,"max":300}}}' |
	"$nexus" mcp ./chem

# A program in the whole language: a local module (stats/main.loc), a
# record literal, guards, a where clause, an effect, and the prelude's map
# over a Python function, whose loop runs in the Python pool.
cd "$examples/survey"
show "$nexus" make main.loc
show ./survey summarize plots.csv
show ./survey grade 120

# Another MCP server's tool as a function of a program: examples/weather
# calls server-everything (installed by setup under integration/mcpservers)
# and puts its answer in words with Python; `report` is one command and one
# MCP tool. nexus mcp-import writes the .loc for a server's tools.
PATH="$examples/../integration/mcpservers/node_modules/.bin:$PATH"
export PATH
cd "$examples/weather"
show "$nexus" make main.loc
show ./weather report Chicago
show ./weather weather 'Los Angeles'
cd "$examples/../integration/mcpservers"
echo "\$ $nexus mcp-import .venv/bin/mcp-server-time --fragment | head -20"
"$nexus" mcp-import .venv/bin/mcp-server-time --fragment | head -20
