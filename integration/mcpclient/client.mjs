// Drives an MCP server with the official TypeScript SDK client, so the Go
// integration tests check nexus against a real client rather than against
// our own idea of the protocol.
//
//   node client.mjs stdio COMMAND [ARGS...]
//   node client.mjs http URL [--token T]
//
// Reads a JSON array of operations on stdin, runs them in order and prints
// one JSON object on stdout:
//   {"serverVersion": ..., "protocolVersion": "...", "results": [...],
//    "serverExit": {"code": 0, "signal": null},   (stdio only; both null:
//                                                   still running after SIGTERM)
//    "transportErrors": ["..."]}                   (only when there were some)
// Operations:
//   {"op":"list"}                                  tools/list result
//   {"op":"call","name":N,"arguments":{...}}       CallToolResult
//   {"op":"callConcurrent","calls":[{name,arguments},...]}  array of those
//   {"op":"callProgress","name":N,"arguments":{...}}  {"result": CallToolResult,
//                                                   "progress": [what onprogress got, in order]}
//   {"op":"ping"}                                  ping result
//   {"op":"terminate"}                             DELETE the HTTP session
// An operation the SDK throws on yields {"error":{"code","message","data"}}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const usage = 'usage: node client.mjs stdio COMMAND [ARGS...] | http URL [--token T]';

function die(msg, code = 2) {
    process.stderr.write(`mcpclient: ${msg}\n`);
    process.exit(code);
}

function makeTransport(argv) {
    const [mode, ...rest] = argv;
    if (mode === 'stdio' && rest.length > 0) {
        return new StdioClientTransport({
            command: rest[0],
            args: rest.slice(1),
            stderr: 'inherit',
            // The SDK passes only HOME, PATH and a few others by default; the
            // tests steer the server through its environment (TMPDIR, tokens),
            // so hand it ours whole.
            env: { ...process.env },
        });
    }
    if (mode === 'http' && (rest.length === 1 || (rest.length === 3 && rest[1] === '--token'))) {
        const headers = rest.length === 3 ? { Authorization: `Bearer ${rest[2]}` } : {};
        return new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit: { headers } });
    }
    die(usage);
}

async function readStdin() {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
}

// errorOf keeps what a test asserts on: McpError carries the JSON-RPC code,
// StreamableHTTPError the HTTP status, Node errors a string code. McpError
// prefixes "MCP error CODE: " to the message; drop it so a test sees the
// server's own words.
function errorOf(err) {
    let message = String(err?.message ?? err);
    const prefix = `MCP error ${err?.code}: `;
    if (err?.name === 'McpError' && message.startsWith(prefix)) message = message.slice(prefix.length);
    const e = { code: err?.code ?? null, message };
    if (err?.data !== undefined) e.data = err.data;
    return { error: e };
}

async function attempt(fn) {
    try {
        return await fn();
    } catch (err) {
        return errorOf(err);
    }
}

const callTool = (client, c) => attempt(() => client.callTool({ name: c.name, arguments: c.arguments ?? {} }));

const transport = makeTransport(process.argv.slice(2));
let ops;
try {
    ops = JSON.parse(await readStdin());
} catch (err) {
    die(`operations on stdin are not JSON: ${err.message}`);
}
if (!Array.isArray(ops)) die('operations on stdin must be a JSON array');
const known = new Set(['list', 'call', 'callConcurrent', 'callProgress', 'ping', 'terminate']);
for (const op of ops) {
    // A misspelled operation is a bug in the test, not a server failure.
    if (!known.has(op?.op)) die(`unknown operation ${JSON.stringify(op)}`);
}

// The SDK keeps the negotiated version to itself; it hands it to the
// transport through setProtocolVersion (HTTP sends it as a header), so
// catch it there. stdio transports have no such method, which is fine.
let protocolVersion;
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => {
    protocolVersion = v;
    setVersion?.(v);
};

const client = new Client({ name: 'nexus-integration', version: '1.0.0' });
// The SDK reports transport trouble here: that of a failed request (which
// also shows in its result) and that outside any request, e.g. the HTTP
// client's optional GET stream refused with something other than 405.
const transportErrors = [];
client.onerror = (err) => transportErrors.push(String(err?.message ?? err));

try {
    await client.connect(transport);
} catch (err) {
    process.stderr.write(`mcpclient: connect failed (code ${err?.code}): ${err?.stack ?? err}\n`);
    process.exit(1);
}

// The child process is private to the transport, but how the server ends
// when its stdin closes (exit 0 on EOF, rather than SIGTERM after the SDK's
// 2 s grace) is part of what we test; the transport forgets it on exit.
const child = transport._process;

const results = [];
for (const op of ops) {
    switch (op.op) {
        case 'list':
            results.push(await attempt(() => client.listTools()));
            break;
        case 'call':
            results.push(await callTool(client, op));
            break;
        case 'callProgress': {
            // onprogress makes the SDK send a progressToken.
            const progress = [];
            const onprogress = (p) => progress.push(p);
            const result = await attempt(() =>
                client.callTool({ name: op.name, arguments: op.arguments ?? {} }, undefined, { onprogress }));
            // The SDK runs notification handlers a turn of the event loop
            // after reading them, so a result read just after a
            // notification can overtake it: let them run first.
            await new Promise((resolve) => setImmediate(resolve));
            results.push({ result, progress: [...progress] });
            break;
        }
        case 'callConcurrent':
            results.push(await Promise.all((op.calls ?? []).map((c) => callTool(client, c))));
            break;
        case 'ping':
            results.push(await attempt(() => client.ping()));
            break;
        case 'terminate':
            results.push(await attempt(async () => {
                if (!transport.terminateSession) throw new Error('terminate needs the http transport');
                await transport.terminateSession();
                return {};
            }));
            break;
    }
}

await client.close();

const out = { serverVersion: client.getServerVersion() ?? null, results };
if (protocolVersion !== undefined) out.protocolVersion = protocolVersion;
if (child) out.serverExit = { code: child.exitCode, signal: child.signalCode };
if (transportErrors.length > 0) out.transportErrors = transportErrors;
// Exit explicitly: open keep-alive sockets must not hold the test up.
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
